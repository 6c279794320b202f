/*
 * import_et_cost: a roofline estimate of each Execution Trace op's cost from its shapes, on one
 * of synth's GPUs (synth_roofline.c), for traces without a measured time (import_et.h).
 *
 *  - matmul family (mm, addmm, bmm, baddbmm, matmul, linear): 2 * numel(output) * K FLOPs,
 *    K the last dimension of the first matrix input;
 *  - convolutions (conv1d/2d/3d, convolution, _convolution, cudnn_convolution): 2 *
 *    numel(output) * numel(weight) / weight.shape[0] FLOPs; convolution_backward twice that
 *    (grad input and grad weight) from grad_output and weight;
 *  - everything else that touches CUDA memory: memory-bound, the bytes of its CUDA inputs and
 *    outputs (elementwise, reductions, copies, optimizer steps);
 *  - views (every CUDA output on an input's storage, nothing written): no kernel, cost 0;
 *  - collectives (c10d::*, nccl:*, record_param_comms): the roofline has no network, so no
 *    estimate, counted as uncosted (cost 0);
 *  - an op whose CUDA tensors have no bytes: no estimate, counted as uncosted;
 *  - an op with no CUDA tensor at all is left out of the events (import_et_ops.c).
 * Each op also pays the GPU's launch overhead, as synth's ops do. dtype: 2-byte items use the
 * FP16 tensor-core peak, anything else FP32.
 */
#include <string.h>

#include "import_et.h"
#include "synth.h"

static const char *const matmuls[] = {"aten::mm",     "aten::addmm",  "aten::bmm",
                                      "aten::baddbmm", "aten::matmul", "aten::linear",
                                      "aten::addbmm"};
static const char *const convs[] = {"aten::conv1d",      "aten::conv2d",
                                    "aten::conv3d",      "aten::convolution",
                                    "aten::_convolution", "aten::cudnn_convolution"};

static int in_list(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, list[i]) == 0)
            return 1;
    return 0;
}

/* The i-th tensor argument of a side (skipping non-tensors), or NULL. */
static const et_tensor *tensor_arg(const et_trace *t, uint32_t first, uint32_t n, unsigned i,
                                   uint32_t *arg_index)
{
    for (uint32_t a = 0; a < n; a++) {
        const et_arg *arg = &t->args[first + a];
        if (arg->n == 1 && i-- == 0) {
            *arg_index = a;
            return &t->tensors[arg->first];
        }
    }
    return NULL;
}

/* The first (last = 0) or last (last = 1) dimension of input argument a, or 0. */
static double dim(const et_trace *t, const et_op *op, uint32_t a, int last)
{
    const et_arg *arg = &t->args[op->in_first + a];
    int64_t d = last ? arg->dim_last : arg->dim0;
    return d > 0 ? (double)d : 0;
}

static double out_numel(const et_trace *t, const et_op *op)
{
    uint32_t a;
    const et_tensor *o = tensor_arg(t, op->out_first, op->n_out, 0, &a);
    return o ? (double)o->numel : 0;
}

/* FLOPs of a matmul or convolution, 0 when the shapes are missing. */
static double op_flops(const et_trace *t, const et_op *op)
{
    uint32_t a;
    if (in_list(op->name, matmuls, sizeof matmuls / sizeof *matmuls)) {
        /* addmm/baddbmm/addbmm(bias, A, B): A is the second tensor */
        unsigned ai = strstr(op->name, "add") ? 1 : 0;
        if (!tensor_arg(t, op->in_first, op->n_in, ai, &a))
            return 0;
        return 2.0 * out_numel(t, op) * dim(t, op, a, 1);
    }
    int bwd = strcmp(op->name, "aten::convolution_backward") == 0;
    if (bwd || in_list(op->name, convs, sizeof convs / sizeof *convs)) {
        /* forward (input, weight, ...); backward (grad_output, input, weight, ...) */
        const et_tensor *w = tensor_arg(t, op->in_first, op->n_in, bwd ? 2 : 1, &a);
        double cout = w ? dim(t, op, a, 0) : 0;
        if (!w || cout <= 0)
            return 0;
        uint32_t ga;
        const et_tensor *gy = tensor_arg(t, op->in_first, op->n_in, 0, &ga);
        double y = bwd ? (gy ? (double)gy->numel : 0) : out_numel(t, op);
        return (bwd ? 4.0 : 2.0) * y * (double)w->numel / cout;
    }
    return 0;
}

/* Bytes of the op's CUDA tensors; *view when every output lies on an input's storage and the
 * schema writes nothing. */
static double op_bytes(const et_trace *t, const et_op *op, int *view, int *half, int *cuda)
{
    double bytes = 0;
    int outs = 0, outs_on_inputs = 0;
    *half = 0;
    *cuda = 0;
    for (int side = 0; side < 2; side++) {
        uint32_t first = side ? op->out_first : op->in_first, n = side ? op->n_out : op->n_in;
        for (uint32_t a = 0; a < n; a++) {
            const et_arg *arg = &t->args[first + a];
            for (uint32_t i = 0; i < arg->n; i++) {
                const et_tensor *x = &t->tensors[arg->first + i];
                if (!x->cuda)
                    continue;
                *cuda = 1;
                bytes += (double)x->numel * (double)x->itemsize;
                *half |= x->itemsize == 2;
                if (!side)
                    continue;
                outs++;
                for (uint32_t b = 0; b < op->n_in; b++) {
                    const et_arg *ia = &t->args[op->in_first + b];
                    int hit = 0;
                    for (uint32_t j = 0; j < ia->n && !hit; j++)
                        hit = t->tensors[ia->first + j].cuda &&
                              t->tensors[ia->first + j].storage_id == x->storage_id;
                    if (hit) {
                        outs_on_inputs++;
                        break;
                    }
                }
            }
        }
    }
    *view = outs > 0 && outs == outs_on_inputs && !strchr(op->schema, '!');
    return bytes;
}

static int is_collective(const char *name)
{
    return strncmp(name, "c10d::", 6) == 0 || strstr(name, "nccl") != NULL ||
           strcmp(name, "record_param_comms") == 0;
}

int et_estimate_costs(et_trace *t, const char *gpu_key, et_cost_totals *tot, gms_error *err)
{
    memset(tot, 0, sizeof *tot);
    const gmt_synth_gpu *gpu = gmt_synth_gpu_find(gpu_key ? gpu_key : ET_DEFAULT_GPU);
    if (!gpu)
        return gms_error_set(err, GMS_EINVAL,
                             "unknown GPU \"%s\" for the roofline estimate (known: h200, h100, "
                             "a100, v100, titanv)",
                             gpu_key);
    for (size_t k = 0; k < t->n_ops; k++) {
        et_op *op = &t->ops[k];
        int view, half, cuda;
        double bytes = op_bytes(t, op, &view, &half, &cuda);
        double flops = op_flops(t, op);
        op->has_cost = 1;
        if (!cuda) { /* a CPU-only op: the events leave it out */
            op->dur_ns = 0;
        } else if (is_collective(op->name)) { /* the roofline knows no network */
            op->dur_ns = 0;
            op->has_cost = 0;
            tot->uncosted++;
        } else if (view && flops == 0) {
            op->dur_ns = 0;
            tot->views++;
        } else if (bytes > 0 || flops > 0) {
            op->dur_ns = gmt_synth_cost_ns(gpu, half ? GMT_SYNTH_FP16 : GMT_SYNTH_FP32, flops,
                                           bytes);
            tot->estimated++;
        } else {
            op->dur_ns = 0;
            op->has_cost = 0;
            tot->uncosted++;
        }
    }
    return 0;
}
