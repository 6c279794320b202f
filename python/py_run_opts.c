/* py_run_opts: swap and planner options of gpumemsim.sim() and their figures (py_run_opts.h). */
#include "py_run_opts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void py_iters_observe(void *ctx, const sim_iteration_report *r)
{
    py_iters *it = ctx;
    /* as the CLI's log (analysis/iter_log.c): only the first run, whose numbers increase */
    if (it->failed || (it->n && r->iteration <= it->v[it->n - 1].r.iteration))
        return;
    if (it->n == it->cap) {
        size_t cap = it->cap ? 2 * it->cap : 16;
        py_iter *nv = realloc(it->v, cap * sizeof *nv);
        if (!nv) {
            it->failed = 1;
            return;
        }
        it->v = nv;
        it->cap = cap;
    }
    size_t len = 1;
    for (uint32_t i = 0; i < r->n_layers; i++)
        if (r->checkpoint[i])
            len += strlen(sim_iteration_report_layer(r, i)) + 1;
    char *plan = malloc(len), *p = plan;
    if (!plan) {
        it->failed = 1;
        return;
    }
    *p = 0;
    for (uint32_t i = 0; i < r->n_layers; i++) {
        if (!r->checkpoint[i])
            continue;
        const char *nm = sim_iteration_report_layer(r, i);
        size_t k = strlen(nm);
        if (p != plan)
            *p++ = ',';
        memcpy(p, nm, k + 1);
        p += k;
    }
    py_iter *x = &it->v[it->n++];
    x->r = *r;
    x->r.layers = NULL;
    x->r.checkpoint = NULL;
    x->plan = plan;
}

void py_iters_free(py_iters *it)
{
    for (size_t i = 0; i < it->n; i++)
        free(it->v[i].plan);
    free(it->v);
    memset(it, 0, sizeof *it);
}

int py_opts_planner(const char *policy, const char *policy_args, sim_config *cfg, char *params,
                    size_t len)
{
    const sim_planner *pl = policy ? planner_find(policy) : NULL;
    if (!pl) {
        if (policy_args) {
            PyErr_Format(PyExc_ValueError, "policy_args sets a checkpoint planner's parameters; "
                         "policy '%s' takes none", policy ? policy : "dtr");
            return -1;
        }
        return 0;
    }
    gms_error err = {0};
    char *canon;
    if (planner_params_canon(policy_args, &canon, &err)) {
        PyErr_Format(PyExc_ValueError, "policy_args: %s", err.msg);
        return -1;
    }
    int fits = strlen(canon) < len;
    snprintf(params, len, "%s", canon);
    free(canon);
    if (!fits) {
        PyErr_Format(PyExc_ValueError, "policy_args is longer than %zu bytes", len - 1);
        return -1;
    }
    cfg->planner = pl;
    cfg->planner_params = params;
    cfg->policy = NULL;
    return 1;
}

static int swaps(const sim_config *cfg)
{
    return !cfg->planner && cfg->policy && (cfg->policy->needs & SIM_NEEDS_SWAP);
}

int py_opts_swap(const char *link, PyObject *host_memory, const sim_trace *t, sim_config *cfg)
{
    int host = host_memory && host_memory != Py_None;
    if (!swaps(cfg)) {
        if (link || host) {
            PyErr_Format(PyExc_ValueError, "%s: policy %s never swaps to host memory; use a "
                         "swapping policy (swap-lru, hybrid, capuchin, autoswap) or drop it",
                         link ? "link" : "host_memory",
                         cfg->planner ? cfg->planner->name : cfg->policy->name);
            return -1;
        }
        return 0;
    }
    if (link) {
        sim_link l;
        gms_error err = {0};
        if (sim_link_parse(link, &l, &err)) {
            PyErr_Format(PyExc_ValueError, "link: %s", err.msg);
            return -1;
        }
        cfg->link_gbps = l.gbps;
        cfg->link_latency_ns = l.latency_ns;
    }
    if (host) {
        unsigned long long b = PyLong_Check(host_memory) ? PyLong_AsUnsignedLongLong(host_memory)
                                                          : 0;
        if (!PyLong_Check(host_memory) || PyErr_Occurred() || b == 0) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "host_memory %R: give a positive byte count (an int; "
                         "None = unlimited)", host_memory);
            return -1;
        }
        uint64_t smallest = sim_trace_smallest_storage(t);
        if (b < smallest) {
            PyErr_Format(PyExc_ValueError, "host_memory %llu is smaller than the smallest "
                         "tensor the trace could swap (%llu bytes): nothing would ever fit",
                         b, (unsigned long long)smallest);
            return -1;
        }
        cfg->host_memory = b;
    }
    return 0;
}

static int put(PyObject *d, const char *k, PyObject *v)
{
    if (!v)
        return -1;
    int rc = PyDict_SetItemString(d, k, v);
    Py_DECREF(v);
    return rc;
}

static double util(uint64_t busy, uint64_t clock)
{
    double u = clock ? (double)busy / (double)clock : 0;
    return u > 1 ? 1 : u;
}

#define ULL(x) ((unsigned long long)(x))

static int put_swap(PyObject *d, const sim_config *cfg, const sim_result *r)
{
    sim_link l;
    if (cfg->link_gbps > 0)
        l = (sim_link){cfg->link_gbps, cfg->link_latency_ns};
    else
        sim_link_default(&l);
    PyObject *s = Py_BuildValue(
        "{s:d,s:K,s:O,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:d,s:d,s:K}", "link_gbps", l.gbps,
        "link_latency_ns", ULL(l.latency_ns), "host_memory", Py_None, "swaps_out",
        ULL(r->swaps_out), "swaps_in", ULL(r->swaps_in), "swap_out_bytes",
        ULL(r->swap_out_bytes), "swap_in_bytes", ULL(r->swap_in_bytes), "prefetches",
        ULL(r->prefetches), "fallbacks", ULL(r->swap_fallbacks), "stall_ns", ULL(r->stall_ns),
        "d2h_busy_ns", ULL(r->d2h_busy_ns), "h2d_busy_ns", ULL(r->h2d_busy_ns),
        "d2h_utilization", util(r->d2h_busy_ns, r->clock), "h2d_utilization",
        util(r->h2d_busy_ns, r->clock), "host_peak", ULL(r->host_peak));
    if (s && cfg->host_memory != UINT64_MAX &&
        put(s, "host_memory", PyLong_FromUnsignedLongLong(ULL(cfg->host_memory))) < 0)
        Py_CLEAR(s);
    return put(d, "swap", s);
}

static PyObject *iteration(const py_iter *x)
{
    const sim_iteration_report *r = &x->r;
    PyObject *o = Py_BuildValue(
        "{s:I,s:O,s:s,s:K,s:K,s:O,s:O,s:K,s:K,s:K,s:K,s:d,s:I,s:I,s:s}", "iteration",
        r->iteration, "input_size", Py_None, "status", sim_status_name(r->status),
        "start_memory", ULL(r->start_memory), "peak_memory", ULL(r->peak_memory),
        "predicted_peak", Py_None, "cache", Py_None, "plan_ns", ULL(r->plan_ns), "clock_ns",
        ULL(r->clock_ns), "compute_ns", ULL(r->compute_ns), "recompute_ns",
        ULL(r->recompute_ns), "overhead",
        r->compute_ns ? (double)r->clock_ns / (double)r->compute_ns : 1.0, "layers",
        r->n_layers, "checkpointed", r->n_checkpointed, "plan", x->plan);
    if (o && r->input_size >= 0 &&
        put(o, "input_size", PyLong_FromLongLong((long long)r->input_size)) < 0)
        Py_CLEAR(o);
    if (o && r->predicted_peak >= 0 &&
        put(o, "predicted_peak", PyFloat_FromDouble(r->predicted_peak)) < 0)
        Py_CLEAR(o);
    if (o && r->cache_hit >= 0 &&
        put(o, "cache", PyUnicode_FromString(r->cache_hit ? "hit" : "miss")) < 0)
        Py_CLEAR(o);
    return o;
}

static int put_planner(PyObject *d, const sim_config *cfg, const sim_result *r,
                       const py_iters *it)
{
    if (it->failed) {
        PyErr_SetString(PyExc_MemoryError, "out of memory keeping the per-iteration reports");
        return -1;
    }
    if (put(d, "policy_args",
            PyUnicode_FromString(cfg->planner_params ? cfg->planner_params : "")) < 0)
        return -1;
    uint32_t asked = r->cache_hits + r->cache_misses;
    PyObject *p = Py_BuildValue(
        "{s:I,s:I,s:O,s:O,s:I,s:I,s:O,s:d,s:K}", "iterations", r->plan_iterations, "predicted",
        r->plan_predicted, "pred_err_mean", Py_None, "pred_err_max", Py_None, "cache_hits",
        r->cache_hits, "cache_misses", r->cache_misses, "cache_hit_rate", Py_None, "plan_s",
        r->plan_s, "checkpoints", ULL(r->checkpoints));
    if (p && r->plan_predicted &&
        (put(p, "pred_err_mean", PyFloat_FromDouble(r->pred_err_mean)) < 0 ||
         put(p, "pred_err_max", PyFloat_FromDouble(r->pred_err_max)) < 0))
        Py_CLEAR(p);
    if (p && asked &&
        put(p, "cache_hit_rate", PyFloat_FromDouble((double)r->cache_hits / asked)) < 0)
        Py_CLEAR(p);
    if (put(d, "planner", p) < 0)
        return -1;
    PyObject *l = PyList_New((Py_ssize_t)it->n);
    for (size_t i = 0; l && i < it->n; i++) {
        PyObject *o = iteration(&it->v[i]);
        if (!o)
            Py_CLEAR(l);
        else
            PyList_SET_ITEM(l, (Py_ssize_t)i, o);
    }
    return put(d, "iterations", l);
}

int py_opts_put(PyObject *d, const sim_config *cfg, const sim_result *r, const py_iters *it)
{
    if (cfg->planner)
        return put_planner(d, cfg, r, it);
    return swaps(cfg) ? put_swap(d, cfg, r) : 0;
}
