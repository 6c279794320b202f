/* The sweep test's stand-in for sweep_checkmate.c (which needs the solver, opt/): no policy
 * is a Checkmate one here; the real runs are tested end to end (tests/cli/analysis). */
#include "sweep_checkmate.h"

int sweep_checkmate_is(const char *policy)
{
    (void)policy;
    return 0;
}

void sweep_checkmate_params(const sweep_spec *sp, const char *policy, const sim_trace *t,
                            uint64_t budget, char *buf, size_t len)
{
    (void)sp, (void)policy, (void)t, (void)budget;
    if (len)
        buf[0] = '\0';
}

int sweep_checkmate_run(store *s, const sim_trace *t, const char *trace_hash,
                        const char *policy, uint64_t budget, const sweep_spec *sp,
                        sim_result *res, int *cached, char *note, size_t note_len,
                        gms_error *err)
{
    (void)s, (void)t, (void)trace_hash, (void)budget, (void)sp, (void)res, (void)cached;
    (void)note, (void)note_len;
    return gms_error_set(err, GMS_EINVAL, "%s: not in the sweep test", policy);
}
