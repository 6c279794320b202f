/*
 * gpumemsim: the Python binding (docs/plugins.md, "Python"). A C extension over
 * libgpumemsim.so:
 *
 *   gpumemsim.sim(trace, budget=0.4, score=lambda s: s.compute / (s.size * s.staleness))
 *   gpumemsim.sim(trace, budget=0.4, policy="dtr")          # a built-in, or a plugin path
 *   gpumemsim.sim(trace, budget=0.4, policy="hybrid", link="pcie3")   # a swapping policy
 *   gpumemsim.sim(trace, budget=0.8, policy="mimose", policy_args="warmup=5")  # a planner
 *
 * returns the dictionary `gpumemsim sim --json` prints (same keys, same values). trace is a
 * path or a gpumemsim.Trace (gpumemsim.load(path), to load a trace once for many runs).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpumemsim.h"
#include "py_policy.h"
#include "py_run_opts.h"

/* The largest budget ratio, the CLI's (cli.h CLI_MAX_BUDGET_RATIO): a bigger plain number
 * is more likely meant as bytes. */
#define MAX_BUDGET_RATIO 10.0

static PyObject *error_type; /* gpumemsim.Error */

/* ------------------------------------------------------------------------------------------
 * gpumemsim.Trace: a loaded trace.
 */
typedef struct {
    PyObject_HEAD
    sim_trace *t;
    PyObject *path; /* str, as given */
} py_trace;

static void trace_dealloc(PyObject *self)
{
    py_trace *o = (py_trace *)self;
    sim_trace_free(o->t);
    Py_XDECREF(o->path);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *trace_baseline(PyObject *self, void *closure)
{
    (void)closure;
    const sim_baseline *b = sim_trace_baseline(((py_trace *)self)->t);
    return Py_BuildValue("{sKsKsKsKsK}", "memory", (unsigned long long)b->memory, "compute",
                         (unsigned long long)b->compute, "constants",
                         (unsigned long long)b->constants, "bottleneck",
                         (unsigned long long)b->bottleneck, "ops",
                         (unsigned long long)(b->ops - b->constant_ops)); /* as info: CALL+MUTATE */
}

static PyObject *trace_path(PyObject *self, void *closure)
{
    (void)closure;
    return Py_NewRef(((py_trace *)self)->path);
}

static PyGetSetDef trace_getset[] = {
    {"path", trace_path, NULL, "the path it was loaded from", NULL},
    {"baseline", trace_baseline, NULL,
     "with no budget: peak memory, compute (ns), constants (bytes), bottleneck (bytes) and\n"
     "ops (CALL + MUTATE, as `gpumemsim info` counts them)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject trace_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gpumemsim.Trace",
    .tp_doc = "A trace loaded once (gpumemsim.load) for any number of gpumemsim.sim runs.",
    .tp_basicsize = sizeof(py_trace),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = trace_dealloc,
    .tp_getset = trace_getset,
};

/* Loads path_obj, with a PyTorch Execution Trace's Kineto trace (kineto_obj; None = none) for
 * measured op costs, as the CLI's --kineto. */
static PyObject *load_trace(PyObject *path_obj, PyObject *kineto_obj)
{
    PyObject *bytes = NULL, *kbytes = NULL;
    if (kineto_obj && kineto_obj != Py_None && !PyUnicode_FSConverter(kineto_obj, &kbytes))
        return NULL;
    if (!PyUnicode_FSConverter(path_obj, &bytes)) {
        Py_XDECREF(kbytes);
        return NULL;
    }
    PyObject *str = PyOS_FSPath(path_obj);
    PyObject *path = str && PyBytes_Check(str) ? PyUnicode_DecodeFSDefaultAndSize(
                                                     PyBytes_AS_STRING(str), PyBytes_GET_SIZE(str))
                                               : Py_XNewRef(str);
    Py_XDECREF(str);
    if (!path) {
        Py_DECREF(bytes);
        Py_XDECREF(kbytes);
        return NULL;
    }
    sim_trace *t = NULL;
    gms_error err = {0};
    int rc;
    const char *kineto = kbytes ? PyBytes_AS_STRING(kbytes) : NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = sim_trace_load_kineto(PyBytes_AS_STRING(bytes), kineto, 0, &t, &err);
    Py_END_ALLOW_THREADS
    Py_DECREF(bytes);
    Py_XDECREF(kbytes);
    if (rc) {
        Py_DECREF(path);
        PyErr_SetString(error_type, err.msg);
        return NULL;
    }
    py_trace *o = PyObject_New(py_trace, &trace_type);
    if (!o) {
        sim_trace_free(t);
        Py_DECREF(path);
        return NULL;
    }
    o->t = t;
    o->path = path;
    return (PyObject *)o;
}

static PyObject *py_load(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"path", "kineto", NULL};
    PyObject *path, *kineto = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$O", kwlist, &path, &kineto))
        return NULL;
    return load_trace(path, kineto);
}

/* ------------------------------------------------------------------------------------------
 * gpumemsim.sim
 */

/* needs=('regions', 'eqclass') -> SIM_NEEDS_* bits. */
static int parse_needs(PyObject *seq, unsigned *out)
{
    *out = 0;
    if (!seq || seq == Py_None)
        return 0;
    if (PyUnicode_Check(seq)) {
        PyErr_SetString(PyExc_TypeError, "needs must be a tuple of names: ('regions',)");
        return -1;
    }
    PyObject *it = PyObject_GetIter(seq);
    if (!it)
        return -1;
    PyObject *x;
    while ((x = PyIter_Next(it))) {
        const char *s = PyUnicode_Check(x) ? PyUnicode_AsUTF8(x) : NULL;
        if (s && strcmp(s, "regions") == 0)
            *out |= SIM_NEEDS_REGIONS;
        else if (s && strcmp(s, "eqclass") == 0)
            *out |= SIM_NEEDS_EQCLASS;
        else {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError,
                             "needs: unknown %R; known: 'regions' (region_fwd_cost, "
                             "region_rev_cost), 'eqclass' (eqclass_cost)", x);
            Py_DECREF(x);
            Py_DECREF(it);
            return -1;
        }
        Py_DECREF(x);
    }
    Py_DECREF(it);
    return PyErr_Occurred() ? -1 : 0;
}

/* The CLI writes doubles as the shortest decimal that reads back as the same double, so
 * json.loads of `sim --json` gives exactly the doubles stored here. */
static PyObject *dbl(double d)
{
    return PyFloat_FromDouble(d);
}

/* The dictionary of `gpumemsim sim --json` (cli/cmd_sim.c print_json), key for key. */
/* The run's peak as the CLI's JSON peak_at (cli/peak_report.c), with the run's seed. */
static PyObject *peak_dict(const sim_peak *p, uint64_t seed)
{
    PyObject *cats = PyDict_New();
    for (int k = 0; cats && k < SIM_CAT_COUNT; k++) {
        PyObject *v = PyLong_FromUnsignedLongLong((unsigned long long)p->by_category[k]);
        if (!v || PyDict_SetItemString(cats, sim_category_key((sim_category)k), v) < 0)
            Py_CLEAR(cats);
        Py_XDECREF(v);
    }
    if (!cats)
        return NULL;
    return Py_BuildValue("{s:K,s:K,s:s,s:s,s:N,s:{s:K,s:K,s:s},s:K}", "memory",
                         (unsigned long long)p->memory, "op_index",
                         (unsigned long long)p->op_index, "op", p->op, "phase",
                         sim_phase_name(p->phase), "by_category", cats, "largest_op", "bytes",
                         (unsigned long long)p->largest_op_bytes, "op_index",
                         (unsigned long long)p->largest_op_index, "op",
                         p->largest_op ? p->largest_op : "", "seed",
                         (unsigned long long)seed);
}

static PyObject *result_dict(PyObject *trace, const char *policy, const sim_config *cfg,
                             double ratio, const sim_baseline *bl, const sim_result *r,
                             const char *allocator, const sim_peak *peak)
{
    PyObject *d = PyDict_New();
    if (!d)
        return NULL;
#define PUT(K, V)                                                                          \
    do {                                                                                  \
        PyObject *v_ = (V);                                                               \
        if (!v_ || PyDict_SetItemString(d, K, v_) < 0) {                                  \
            Py_XDECREF(v_);                                                               \
            Py_DECREF(d);                                                                 \
            return NULL;                                                                  \
        }                                                                                 \
        Py_DECREF(v_);                                                                    \
    } while (0)
#define U64(x) PyLong_FromUnsignedLongLong((unsigned long long)(x))
    PUT("trace", Py_NewRef(trace));
    PUT("policy", PyUnicode_FromString(policy));
    PUT("semantics", PyUnicode_FromString("simrd"));
    PUT("budget", cfg->budget == UINT64_MAX ? Py_NewRef(Py_None) : U64(cfg->budget));
    PUT("budget_ratio", ratio > 0 ? dbl(ratio) : Py_NewRef(Py_None));
    PUT("seed", U64(cfg->seed));
    PUT("sample", cfg->sample == SIM_SAMPLE_SQRT ? PyUnicode_FromString("sqrt") : U64(cfg->sample));
    PUT("remat_limit", dbl(cfg->remat_limit));
    PUT("status", PyUnicode_FromString(sim_status_name(r->status)));
    PUT("overhead", r->status == SIM_OK ? dbl(r->overhead) : Py_NewRef(Py_None));
    PUT("evictions", U64(r->evictions));
    PUT("eager_evictions", U64(r->eager_evictions));
    PUT("remats", U64(r->remats));
    PUT("remat_compute", U64(r->remat_compute));
    PUT("peak_memory", U64(r->peak_memory));
    PUT("baseline_memory", U64(bl->memory));
    PUT("baseline_compute", U64(bl->compute));
    PUT("clock", U64(r->clock));
    PUT("wall_s", dbl(r->wall_s));
    PUT("allocator", PyUnicode_FromString(allocator));
    PUT("peak_reserved", U64(r->peak_reserved));
    PUT("peak_allocated", U64(r->peak_allocated));
    PUT("largest_free", U64(r->largest_free));
    PUT("frag_allocs", U64(r->frag_allocs));
    PUT("frag_ratio", dbl(r->frag_ratio));
    PyObject *cm = Py_BuildValue("{s:K,s:K,s:K}", "op_overhead",
                                 (unsigned long long)cfg->op_overhead_ns, "search_cost",
                                 (unsigned long long)cfg->search_cost_ns, "evict_cost",
                                 (unsigned long long)cfg->evict_cost_ns);
    PUT("cost_model", cm);
    PUT("ops_executed", U64(r->ops_executed));
    PUT("candidates", U64(r->candidates));
    PUT("op_overhead_ns", U64(r->op_overhead_ns));
    PUT("search_ns", U64(r->search_ns));
    PUT("evict_ns", U64(r->evict_ns));
    PUT("peak_at", peak ? peak_dict(peak, cfg->seed) : Py_NewRef(Py_None));
#undef U64
#undef PUT
    return d;
}

static PyObject *py_sim(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"trace", "budget", "policy", "score", "name", "needs",
                             "budget_bytes", "seed", "remat_limit", "sample", "allocator",
                             "alloc_conf", "op_overhead_ns", "search_cost_ns",
                             "evict_cost_ns", "link", "host_memory", "policy_args", "kineto",
                             NULL};
    PyObject *trace_arg, *budget_obj = Py_None, *score = Py_None, *needs_obj = Py_None;
    PyObject *bytes_obj = Py_None, *sample_obj = NULL, *host_obj = Py_None, *kineto = Py_None;
    const char *policy_name = NULL, *name = "python", *allocator = "ideal", *alloc_conf = NULL;
    const char *link = NULL, *policy_args = NULL;
    unsigned long long seed = 0, op_overhead = 0, search_cost = 0, evict_cost = 0;
    double remat_limit = 2.0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OzO$sOOKdOszKKKzOzO", kwlist,
                                     &trace_arg, &budget_obj, &policy_name, &score, &name,
                                     &needs_obj, &bytes_obj, &seed, &remat_limit, &sample_obj,
                                     &allocator, &alloc_conf, &op_overhead, &search_cost,
                                     &evict_cost, &link, &host_obj, &policy_args, &kineto))
        return NULL;
    if (kineto != Py_None && PyObject_TypeCheck(trace_arg, &trace_type)) {
        PyErr_SetString(PyExc_TypeError, "kineto= goes with a trace path; a loaded Trace has its "
                                         "costs already: gpumemsim.load(path, kineto=...)");
        return NULL;
    }

    /* the policy: a score callable, or a built-in / plugin by name (dtr by default) */
    if (score != Py_None && policy_name) {
        PyErr_SetString(PyExc_TypeError, "give either policy= (a name or plugin path) or "
                                         "score= (a Python function), not both");
        return NULL;
    }
    if (score != Py_None && (link || host_obj != Py_None)) {
        PyErr_SetString(PyExc_ValueError, "link= and host_memory= go with a swapping policy "
                                          "(policy='swap-lru', ...); a score= policy never swaps");
        return NULL;
    }
    if (score != Py_None && !PyCallable_Check(score)) {
        PyErr_SetString(PyExc_TypeError, "score must be callable: score(storage) -> float");
        return NULL;
    }
    unsigned needs = 0;
    if (parse_needs(needs_obj, &needs))
        return NULL;
    if (needs && score == Py_None) {
        PyErr_SetString(PyExc_TypeError, "needs= goes with score=; a named policy knows its own");
        return NULL;
    }
    if (score != Py_None && (!*name || strlen(name) > 64 || pol_find(name))) {
        PyErr_Format(PyExc_ValueError, "name '%s': give the Python policy a name of 1 to 64 "
                                       "characters that no built-in policy has", name);
        return NULL;
    }
    sim_config cfg;
    sim_config_init(&cfg);
    gms_error err = {0};
    char params[1024]; /* a planner's canonical policy_args, as the CLI's */
    int planner = py_opts_planner(score == Py_None ? policy_name : NULL, policy_args, &cfg,
                                  params, sizeof params);
    if (planner < 0)
        return NULL;
    const char *pn = policy_name ? policy_name : "dtr";
    if (score == Py_None && !planner && !pol_find(pn) && !pol_is_path(pn)) {
        pol_refuse(pn, POL_KIND_EVICT | POL_KIND_PLANNER, &err); /* names what sim() runs */
        PyErr_SetString(error_type, err.msg);
        return NULL;
    }
    if (score == Py_None && !planner && pol_resolve(pn, &cfg.policy, &err) != 0) {
        PyErr_SetString(error_type, err.msg);
        return NULL;
    }
    cfg.seed = seed;
    cfg.remat_limit = remat_limit;
    cfg.op_overhead_ns = op_overhead; /* the runtime-cost model (docs/fidelity.md), ns */
    cfg.search_cost_ns = search_cost;
    cfg.evict_cost_ns = evict_cost;
    if (sample_obj && sample_obj != Py_None) {
        if (PyUnicode_Check(sample_obj) && strcmp(PyUnicode_AsUTF8(sample_obj), "sqrt") == 0) {
            cfg.sample = SIM_SAMPLE_SQRT;
        } else {
            unsigned long k = PyLong_Check(sample_obj) ? PyLong_AsUnsignedLong(sample_obj) : 0;
            if (!PyLong_Check(sample_obj) || PyErr_Occurred() || k >= UINT32_MAX) {
                PyErr_Clear();
                PyErr_SetString(PyExc_ValueError,
                                "sample must be a count of storages (0 = all) or 'sqrt'");
                return NULL;
            }
            cfg.sample = (uint32_t)k;
        }
    }
    sim_memory_options mopt;
    char alloc_key[128];
    if (sim_memory_find(allocator, &cfg.allocator) != 0) {
        PyErr_Format(PyExc_ValueError, "unknown allocator '%s'; valid allocators: %s",
                     allocator, sim_memory_names());
        return NULL;
    }
    if (sim_memory_parse_conf(&cfg.allocator, alloc_conf, &mopt, alloc_key, sizeof alloc_key,
                              &err)) {
        PyErr_Format(PyExc_ValueError, "alloc_conf: %s", err.msg);
        return NULL;
    }
    cfg.allocator_options = &mopt;

    /* the budget: a ratio of baseline memory, or bytes */
    double ratio = 0;
    if (budget_obj != Py_None && bytes_obj != Py_None) {
        PyErr_SetString(PyExc_TypeError, "give budget= (a ratio) or budget_bytes=, not both");
        return NULL;
    }
    if (budget_obj != Py_None) {
        ratio = PyFloat_AsDouble(budget_obj);
        if (ratio == -1 && PyErr_Occurred())
            return NULL;
        if (!(ratio > 0 && ratio <= MAX_BUDGET_RATIO)) {
            char max[32]; /* PyErr_Format has no %g */
            snprintf(max, sizeof max, "%g", MAX_BUDGET_RATIO);
            PyErr_Format(PyExc_ValueError,
                         "budget %R: a ratio of baseline memory in (0, %s], as the CLI's "
                         "--budget; for bytes give budget_bytes=", budget_obj, max);
            return NULL;
        }
    }
    uint64_t bytes = 0;
    if (bytes_obj != Py_None) {
        bytes = PyLong_AsUnsignedLongLong(bytes_obj);
        if (PyErr_Occurred())
            return NULL;
        if (bytes == 0) {
            PyErr_SetString(PyExc_ValueError, "budget_bytes must be positive");
            return NULL;
        }
    }

    PyObject *tobj = PyObject_TypeCheck(trace_arg, &trace_type) ? Py_NewRef(trace_arg)
                                                                 : load_trace(trace_arg, kineto);
    if (!tobj)
        return NULL;
    py_trace *tr = (py_trace *)tobj;
    if (ratio > 0)
        cfg.budget = sim_budget_for_ratio(tr->t, ratio);
    else if (bytes)
        cfg.budget = bytes;

    if (score == Py_None && py_opts_swap(link, host_obj, tr->t, &cfg) != 0) {
        Py_DECREF(tobj);
        return NULL;
    }
    py_policy pp;
    if (score != Py_None) {
        if (py_policy_init(&pp, score, name, needs) != 0) {
            Py_DECREF(tobj);
            return NULL;
        }
        cfg.policy = &pp.pol;
    }
    py_iters iters = {0};
    if (planner) {
        cfg.iteration_observer = py_iters_observe;
        cfg.iteration_ctx = &iters;
    }
    if (cfg.policy && (cfg.policy->needs & SIM_NEEDS_ADDRESSES) && !cfg.allocator) {
        Py_DECREF(tobj);
        PyErr_Format(PyExc_ValueError, "policy %s chooses victims by their addresses, which "
                     "the ideal memory model does not have; pass allocator='caching' (or "
                     "'lifetime')", pol_name(cfg.policy));
        return NULL;
    }

    /* where the run peaks, as the CLI follows it (sim --json's peak_at), a plugin's run too:
     * here it runs in this process, so the observer sees it */
    sim_categories *cats = NULL;
    sim_peak_tracker *pk = NULL;
    if (sim_categories_build(tr->t, &cats, &err) || sim_peak_tracker_new(tr->t, cats, &pk, &err)) {
        sim_categories_free(cats);
        py_iters_free(&iters);
        Py_DECREF(tobj);
        return PyErr_NoMemory();
    }
    cfg.observer = sim_peak_observe;
    cfg.observer_ctx = pk;
    sim_result res;
    int rc;
    if (score == Py_None) {
        Py_BEGIN_ALLOW_THREADS
        rc = sim_run(tr->t, &cfg, &res, &err);
        Py_END_ALLOW_THREADS
    } else {
        rc = sim_run(tr->t, &cfg, &res, &err);
        if (py_policy_finish(&pp, error_type) != 0) {
            sim_peak_tracker_free(pk);
            sim_categories_free(cats);
            py_iters_free(&iters);
            Py_DECREF(tobj);
            return NULL;
        }
    }
    sim_peak peak;
    sim_peak_tracker_result(pk, &peak);
    sim_peak_tracker_free(pk);
    if (rc) {
        PyErr_Format(error_type, "%U: %s", tr->path, err.msg);
        sim_categories_free(cats);
        py_iters_free(&iters);
        Py_DECREF(tobj);
        return NULL;
    }
    PyObject *d = result_dict(tr->path, planner ? cfg.planner->name : pol_name(cfg.policy), &cfg,
                              ratio, sim_trace_baseline(tr->t), &res, alloc_key,
                              &peak);
    sim_categories_free(cats);
    if (d && py_opts_put(d, &cfg, &res, &iters) != 0)
        Py_CLEAR(d);
    py_iters_free(&iters);
    Py_DECREF(tobj);
    return d;
}

/* gpumemsim.ratio(num, a, b): sim_score_ratio, the simulator's num / (a * b). */
static PyObject *py_ratio(PyObject *self, PyObject *args)
{
    (void)self;
    long long num;
    unsigned long long a, b;
    if (!PyArg_ParseTuple(args, "LKK", &num, &a, &b))
        return NULL;
    return PyFloat_FromDouble(sim_score_ratio(num, a, b));
}

static PyObject *py_policies(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    PyObject *l = PyList_New(0);
    pol_entry e;
    for (size_t i = 0; l && pol_catalog_at(i, &e) == 0; i++) {
        if (e.kind == POL_KIND_SOLVED)
            continue; /* sim() runs eviction policies and planners */
        PyObject *s = PyUnicode_FromString(e.name);
        if (!s || PyList_Append(l, s) < 0) {
            Py_XDECREF(s);
            Py_CLEAR(l);
            break;
        }
        Py_DECREF(s);
    }
    return l;
}

static PyMethodDef methods[] = {
    {"sim", (PyCFunction)(void (*)(void))py_sim, METH_VARARGS | METH_KEYWORDS,
     "sim(trace, budget=None, policy=None, score=None, *, name='python', needs=(),\n"
     "    budget_bytes=None, seed=0, remat_limit=2.0, sample=0, allocator='ideal',\n"
     "    alloc_conf=None, op_overhead_ns=0, search_cost_ns=0, evict_cost_ns=0,\n"
     "    link=None, host_memory=None, policy_args=None, kineto=None) -> dict\n\n"
     "Replays trace (a path or a gpumemsim.Trace) under a budget (a ratio of baseline\n"
     "memory, or budget_bytes) and returns the dictionary `gpumemsim sim --json` prints.\n"
     "The policy is a built-in name or a plugin path (policy=, default 'dtr'), or a Python\n"
     "function score(storage) -> float (lower = evicted first) named name=. A score that\n"
     "raises ZeroDivisionError is +inf; any other exception or a NaN stops the run with\n"
     "gpumemsim.Error. needs=('regions',) / ('eqclass',) keeps Storage.region_fwd_cost,\n"
     "region_rev_cost / eqclass_cost. policy= may name a checkpoint planner (ckpt-sqrt, ...)\n"
     "with policy_args='K=V,...'; link= ('pcie3', '16,10') and host_memory= (bytes) go with\n"
     "swapping policies (swap-lru, hybrid, capuchin, autoswap), as the CLI's --link and\n"
     "--host-memory. kineto= (with a trace path) is a PyTorch Execution Trace's Kineto\n"
     "trace for measured op costs, as the CLI's --kineto."},
    {"load", (PyCFunction)(void (*)(void))py_load, METH_VARARGS | METH_KEYWORDS,
     "load(path, *, kineto=None) -> Trace: load a trace once for many runs; kineto= is a\n"
     "PyTorch Execution Trace's Kineto trace for measured op costs (as the CLI's --kineto)."},
    {"ratio", py_ratio, METH_VARARGS,
     "ratio(num, a, b) -> float: num / (a * b) correctly rounded, +inf when a * b == 0\n"
     "(the simulator's sim_score_ratio; Python's int / int gives the same)."},
    {"policies", py_policies, METH_NOARGS,
     "policies() -> the built-in names sim(policy=) takes: eviction policies, then\n"
     "checkpoint planners (as `gpumemsim sim --list-policies`, less checkmate)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "gpumemsim",
    "gpumemsim: replay GPU training traces under a memory budget with an eviction policy,\n"
    "built in or written in Python (docs/plugins.md, \"Python\").",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit_gpumemsim(void);

PyMODINIT_FUNC PyInit_gpumemsim(void)
{
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    error_type = PyErr_NewException("gpumemsim.Error", PyExc_RuntimeError, NULL);
    if (!error_type || PyModule_AddObject(m, "Error", Py_NewRef(error_type)) < 0 ||
        PyType_Ready(&trace_type) < 0 ||
        PyModule_AddObject(m, "Trace", Py_NewRef((PyObject *)&trace_type)) < 0 ||
        py_policy_add_types(m) < 0 ||
        PyModule_AddStringConstant(m, "__version__", GMS_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
