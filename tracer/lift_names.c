/* trc_lift names: iteration marks and op names from NVTX range names (see lift_int.h). */
#include "lift.h"
#include "lift_int.h"

#include <stdlib.h>
#include <string.h>

/* 1 when name marks an iteration: "gpumemsim:iteration", or "gpumemsim:iteration=N" (for
 * tools that cannot attach an NVTX payload, such as torch.cuda.nvtx); *value gets N, or -1. */
int trc_is_iteration(const char *name, int64_t *value)
{
    size_t n = strlen(TRC_ITERATION_RANGE);
    if (!name || strncmp(name, TRC_ITERATION_RANGE, n) != 0)
        return 0;
    if (value)
        *value = -1;
    if (name[n] == '\0')
        return 1;
    if (name[n] != '=')
        return 0;
    char *end = NULL;
    long long v = strtoll(name + n + 1, &end, 10);
    if (end == name + n + 1 || *end != '\0' || v < 0)
        return 0;
    if (value)
        *value = v;
    return 1;
}

/* The op's name: the range name without the per-call details torch.autograd.profiler.emit_nvtx
 * appends ("aten::addmm, seq = 12, op_id = 40, sizes = [...]" -> "aten::addmm"), so that the
 * same op has the same name everywhere. */
void trc_op_name(char *buf, size_t cap, const char *name)
{
    static const char *const details[] = {", seq = ", ", stashed seq = ", ", op_id = ",
                                          ", sizes = ", ", input_op_ids = "};
    size_t len = strlen(name);
    for (size_t i = 0; i < sizeof details / sizeof details[0]; i++) {
        const char *p = strstr(name, details[i]);
        if (p && (size_t)(p - name) < len)
            len = (size_t)(p - name);
    }
    if (len >= cap)
        len = cap - 1;
    memcpy(buf, name, len);
    buf[len] = '\0';
}
