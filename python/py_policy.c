/* py_policy: a score policy that calls Python (see py_policy.h). */
#include "py_policy.h"

#include <math.h>

#include "sim.h"

/* ------------------------------------------------------------------------------------------
 * Storage: the argument of a Python score. Its attributes are read from the view when asked,
 * so a score pays only for what it reads.
 */
typedef struct {
    PyObject_HEAD
    const sim_view *v; /* NULL once the call it was made for is over */
    uint32_t s;
    unsigned needs;
} py_storage;

static const sim_view *live(py_storage *o)
{
    if (!o->v)
        PyErr_SetString(PyExc_RuntimeError,
                        "a gpumemsim Storage is valid only during the score call it was given "
                        "to; copy the attributes you need instead of keeping it");
    return o->v;
}

#define U64_GETTER(NAME, EXPR)                                                            \
    static PyObject *get_##NAME(PyObject *self, void *closure)                            \
    {                                                                                     \
        (void)closure;                                                                    \
        py_storage *o = (py_storage *)self;                                               \
        const sim_view *v = live(o);                                                      \
        if (!v)                                                                           \
            return NULL;                                                                  \
        return PyLong_FromUnsignedLongLong((unsigned long long)(EXPR));                   \
    }
U64_GETTER(index, o->s)
U64_GETTER(size, sim_view_size(v, o->s))
U64_GETTER(compute, sim_view_compute(v, o->s))
U64_GETTER(staleness, sim_view_staleness(v, o->s))
U64_GETTER(clock, sim_view_clock(v))
U64_GETTER(memory, sim_view_memory(v))
U64_GETTER(budget, sim_view_budget(v))
U64_GETTER(pool_size, sim_view_pool_size(v))

static PyObject *get_last_access(PyObject *self, void *closure)
{
    (void)closure;
    py_storage *o = (py_storage *)self;
    const sim_view *v = live(o);
    return v ? PyLong_FromLongLong((long long)sim_view_last_access(v, o->s)) : NULL;
}

/* Region and equivalence-class costs exist only when the run keeps them (needs=...). */
static const sim_view *needing(py_storage *o, unsigned bit, const char *what)
{
    const sim_view *v = live(o);
    if (v && !(o->needs & bit)) {
        PyErr_Format(PyExc_RuntimeError,
                     "Storage.%s is kept only for policies that ask for it: pass "
                     "needs=('%s',) to gpumemsim.sim", what,
                     bit == SIM_NEEDS_REGIONS ? "regions" : "eqclass");
        return NULL;
    }
    return v;
}

static PyObject *get_region_fwd_cost(PyObject *self, void *closure)
{
    (void)closure;
    py_storage *o = (py_storage *)self;
    const sim_view *v = needing(o, SIM_NEEDS_REGIONS, "region_fwd_cost");
    return v ? PyLong_FromUnsignedLongLong(sim_view_region_fwd_cost(v, o->s)) : NULL;
}

static PyObject *get_region_rev_cost(PyObject *self, void *closure)
{
    (void)closure;
    py_storage *o = (py_storage *)self;
    const sim_view *v = needing(o, SIM_NEEDS_REGIONS, "region_rev_cost");
    return v ? PyLong_FromUnsignedLongLong(sim_view_region_rev_cost(v, o->s)) : NULL;
}

static PyObject *get_eqclass_cost(PyObject *self, void *closure)
{
    (void)closure;
    py_storage *o = (py_storage *)self;
    const sim_view *v = needing(o, SIM_NEEDS_EQCLASS, "eqclass_cost");
    return v ? PyLong_FromLongLong((long long)sim_view_eqclass_cost(v, o->s)) : NULL;
}

static PyGetSetDef storage_getset[] = {
    {"index", get_index, NULL, "the storage's index in the trace", NULL},
    {"size", get_size, NULL, "bytes", NULL},
    {"compute", get_compute, NULL,
     "local cost (ns): its op's compute plus the views created on it", NULL},
    {"staleness", get_staleness, NULL,
     "clock - last access (2**64 - 1 before the first access)", NULL},
    {"last_access", get_last_access, NULL,
     "clock at the last access (-2**63 before the first one)", NULL},
    {"region_fwd_cost", get_region_fwd_cost, NULL,
     "compute of the evicted neighbourhood through children (needs=('regions',))", NULL},
    {"region_rev_cost", get_region_rev_cost, NULL,
     "compute of the evicted neighbourhood through parents (needs=('regions',))", NULL},
    {"eqclass_cost", get_eqclass_cost, NULL,
     "DTR-eq's estimate of the evicted neighbourhood (needs=('eqclass',))", NULL},
    {"clock", get_clock, NULL, "the simulated time now (ns)", NULL},
    {"memory", get_memory, NULL, "resident bytes now", NULL},
    {"budget", get_budget, NULL, "the run's budget (bytes)", NULL},
    {"pool_size", get_pool_size, NULL, "evictable storages now", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject storage_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gpumemsim.Storage",
    .tp_doc = "An evictable storage as a Python score function sees it (read only).",
    .tp_basicsize = sizeof(py_storage),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_getset = storage_getset,
};

int py_policy_add_types(PyObject *m)
{
    if (PyType_Ready(&storage_type) < 0)
        return -1;
    Py_INCREF(&storage_type);
    if (PyModule_AddObject(m, "Storage", (PyObject *)&storage_type) < 0) {
        Py_DECREF(&storage_type);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * The policy.
 */
static int score_init(const struct sim_config *cfg, void **state, gms_error *err)
{
    (void)err;
    *state = (void *)cfg->policy; /* the py_policy the sim_policy is the first member of */
    return 0;
}

static double score(const sim_view *v, uint32_t s, void *state)
{
    py_policy *p = state;
    if (p->exc)
        return NAN; /* the run is over: end the scan without calling Python again */
    py_storage *o = (py_storage *)p->storage;
    o->v = v;
    o->s = s;
    PyObject *r = PyObject_CallOneArg(p->score, p->storage);
    if (Py_REFCNT(p->storage) > 1) {
        /* the score kept it: that copy goes stale, the next call gets a fresh one */
        o->v = NULL;
        Py_DECREF(p->storage);
        p->storage = PyObject_New(PyObject, &storage_type);
        if (p->storage)
            ((py_storage *)p->storage)->needs = p->pol.needs;
    }
    double d = NAN;
    if (r) {
        d = PyFloat_AsDouble(r);
        Py_DECREF(r);
    }
    if (!PyErr_Occurred() && !p->storage)
        PyErr_NoMemory();
    if (PyErr_Occurred()) {
        if (r == NULL && PyErr_ExceptionMatches(PyExc_ZeroDivisionError)) {
            PyErr_Clear();
            if (p->storage)
                return INFINITY; /* simrd: a denominator <= 0 scores +inf */
            PyErr_NoMemory();
        }
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_NormalizeException(&type, &value, &tb);
        if (tb && value)
            PyException_SetTraceback(value, tb);
        Py_XDECREF(tb);
        Py_XDECREF(type);
        p->exc = value ? value : Py_NewRef(PyExc_RuntimeError);
        p->exc_clock = sim_view_clock(v);
        p->exc_storage = s;
        return NAN;
    }
    return d; /* a NaN here is the simulator's own error, which names the policy */
}

int py_policy_init(py_policy *p, PyObject *fn, const char *name, unsigned needs)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->pol.name = p->name;
    p->pol.description = "a Python score function";
    p->pol.needs = needs;
    p->pol.score = score;
    p->pol.init = score_init;
    p->score = fn;
    p->storage = PyObject_New(PyObject, &storage_type);
    if (!p->storage)
        return -1;
    ((py_storage *)p->storage)->v = NULL;
    ((py_storage *)p->storage)->needs = needs;
    return 0;
}

int py_policy_finish(py_policy *p, PyObject *error_type)
{
    if (p->storage)
        ((py_storage *)p->storage)->v = NULL;
    Py_CLEAR(p->storage);
    if (!p->exc)
        return 0;
    PyObject *exc = p->exc;
    p->exc = NULL;
    if (!PyErr_GivenExceptionMatches(exc, PyExc_Exception)) {
        /* KeyboardInterrupt, SystemExit: as they are */
        PyErr_Restore(Py_NewRef((PyObject *)Py_TYPE(exc)), exc, PyException_GetTraceback(exc));
        return -1;
    }
    PyObject *msg = PyObject_Str(exc);
    PyErr_Format(error_type,
                 "policy '%s' (a Python score) raised %s: %S, scoring storage %u at clock "
                 "%llu; the run was stopped",
                 p->name, Py_TYPE(exc)->tp_name, msg ? msg : Py_None, p->exc_storage,
                 (unsigned long long)p->exc_clock);
    Py_XDECREF(msg);
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (value)
        PyException_SetCause(value, exc); /* steals exc */
    else
        Py_DECREF(exc);
    PyErr_Restore(type, value, tb);
    return -1;
}
