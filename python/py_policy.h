/*
 * py_policy: an eviction policy whose score is a Python callable (docs/plugins.md, "Python").
 *
 * The simulator scans the pool exactly as for any score policy and calls the callable once
 * per evictable storage with a Storage object (valid during that call only) whose attributes
 * read the sim_view_* functions. Conventions, chosen so that a Python transcription of a
 * simrd formula gives simrd's choices bit for bit:
 *   - a score that raises ZeroDivisionError is +inf (simrd: "denominator <= 0 -> inf"), so
 *     `s.compute / (s.size * s.staleness)` needs no guard; Python's int / int is correctly
 *     rounded like sim_score_ratio;
 *   - any other exception ends the run: sim() raises gpumemsim.Error naming the policy, with
 *     the exception as its __cause__ (KeyboardInterrupt and other non-Exception ones are
 *     re-raised as they are);
 *   - a NaN score ends the run with the simulator's "scored storage S as NaN" error.
 * Runs hold the GIL (the callable is Python); one policy object serves one run at a time.
 */
#ifndef GMS_PY_POLICY_H
#define GMS_PY_POLICY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "policy.h"

typedef struct py_policy {
    sim_policy pol;     /* first: init finds this struct from cfg->policy */
    PyObject *score;    /* the callable (borrowed for the run) */
    PyObject *storage;  /* the Storage object handed to it, reused while nobody keeps it */
    PyObject *exc;      /* the exception that ended the run (owned), or NULL */
    uint64_t exc_clock; /* when it was raised */
    uint32_t exc_storage;
    char name[80];
} py_policy;

/* Registers the Storage type in module m. Returns 0, or -1 with a Python exception set. */
int py_policy_add_types(PyObject *m);

/* Fills p for a run of `score` named `name` with SIM_NEEDS_* bits `needs`. Returns 0, or -1
 * with a Python exception set. */
int py_policy_init(py_policy *p, PyObject *score, const char *name, unsigned needs);

/* After the run: when the callable raised, sets the Python error to report (gpumemsim.Error
 * `error_type` from the callable's exception, or the exception itself) and returns -1; else 0.
 * Releases what init took either way. */
int py_policy_finish(py_policy *p, PyObject *error_type);

#endif
