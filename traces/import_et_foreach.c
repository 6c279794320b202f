/*
 * import_et_foreach: a `_foreach_*` op as one op per element of its tensor lists
 * (docs/import-pytorch.md, "Foreach ops"): how many parts, what each part touches.
 */
#include <string.h>

#include "import_et.h"

/* Bytes a tensor spans in its storage, saturating instead of wrapping on absurd input. */
static uint64_t span(const et_tensor *x)
{
    uint64_t e, b;
    if (__builtin_add_overflow(x->offset, x->numel, &e) ||
        __builtin_mul_overflow(e, x->itemsize, &b))
        return UINT64_MAX / 4;
    return b > UINT64_MAX / 4 ? UINT64_MAX / 4 : b;
}

/* The op's a-th argument, inputs first, then outputs. */
static const et_arg *op_arg(const et_trace *t, const et_op *op, uint32_t a)
{
    return &t->args[a < op->n_in ? op->in_first + a : op->out_first + (a - op->n_in)];
}

/* A `_foreach_*` op applies one op to each element of its tensor lists: N independent ops
 * in one call (a horizontal fusion). Its parts: N when every list argument holds the same
 * N > 1 tensors (single tensors, such as a tensor of scalars, go to every part), else 1. */
uint32_t et_foreach_parts(const et_trace *t, const et_op *op)
{
    if (strncmp(op->name, "aten::_foreach_", 15) != 0)
        return 1;
    uint32_t n = 1;
    for (uint32_t a = 0; a < op->n_in + op->n_out; a++) {
        const et_arg *arg = op_arg(t, op, a);
        if (!arg->is_tensor || arg->n <= 1)
            continue;
        if (n > 1 && arg->n != n)
            return 1; /* lists of different lengths: not element-wise */
        n = arg->n;
    }
    return n;
}

/* The elements of arg that part `part` of `parts` reads or writes: all of a single tensor,
 * element `part` of a list of `parts` tensors. */
void et_part_range(const et_arg *arg, uint32_t part, uint32_t parts, uint32_t *lo,
                   uint32_t *hi)
{
    *lo = 0;
    *hi = arg->n;
    if (parts > 1 && arg->n == parts) {
        *lo = part;
        *hi = part + 1;
    }
}

/* Bytes of the CUDA tensors part `part` touches (its share of a split op's cost). */
uint64_t et_part_bytes(const et_trace *t, const et_op *op, uint32_t part, uint32_t parts)
{
    uint64_t b = 0;
    for (uint32_t a = 0; a < op->n_in + op->n_out; a++) {
        const et_arg *arg = op_arg(t, op, a);
        uint32_t lo, hi;
        et_part_range(arg, part, parts, &lo, &hi);
        for (uint32_t i = lo; i < hi; i++)
            if (t->tensors[arg->first + i].cuda)
                b += span(&t->tensors[arg->first + i]);
    }
    return b;
}

