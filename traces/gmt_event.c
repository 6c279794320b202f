/*
 * gmt_event: the event model's helpers (names, reset, invariant check) shared by every
 * producer and consumer of events.
 */
#include <string.h>

#include "gmt.h"

const char *gmt_kind_name(gmt_kind kind)
{
    switch (kind) {
    case GMT_CONSTANT: return "CONSTANT";
    case GMT_CALL: return "CALL";
    case GMT_MUTATE: return "MUTATE";
    case GMT_COPY: return "COPY";
    case GMT_COPY_FROM: return "COPY_FROM";
    case GMT_RELEASE: return "RELEASE";
    case GMT_ANNOTATE: return "ANNOTATE";
    case GMT_NAME: return "NAME";
    case GMT_SCOPE: return "SCOPE";
    }
    return "?";
}

void gmt_event_init(gmt_event *ev, gmt_kind kind)
{
    memset(ev, 0, sizeof *ev);
    ev->kind = kind;
}

void gmt_event_scope(gmt_event *ev, const char *name, int end)
{
    gmt_event_init(ev, GMT_SCOPE);
    ev->text = name;
    ev->scope_end = end ? 1 : 0;
}

/* Checks what a consumer indexes with: every count has its array, every alias_of and
 * mutated index points inside inputs, required strings are present. Messages name the field
 * so a producer's bug is easy to find. */
int gmt_event_validate(const gmt_event *ev, gms_error *err)
{
    if (!ev)
        return gms_error_set(err, GMS_EINVAL, "event: NULL event");
    const char *k = gmt_kind_name(ev->kind);
    switch (ev->kind) {
    case GMT_CONSTANT:
    case GMT_COPY:
    case GMT_COPY_FROM:
    case GMT_RELEASE:
        return 0;
    case GMT_NAME:
        if (!ev->text)
            return gms_error_set(err, GMS_EFORMAT, "%s event: text is NULL", k);
        return 0;
    case GMT_ANNOTATE:
        if (!ev->text)
            return gms_error_set(err, GMS_EFORMAT, "%s event: text (the annotation kind) is NULL",
                                 k);
        return 0;
    case GMT_SCOPE:
        if (ev->scope_end != 0 && ev->scope_end != 1)
            return gms_error_set(err, GMS_EFORMAT, "%s event: scope_end is %d (0 = begin, 1 = end)",
                                 k, ev->scope_end);
        if (!ev->scope_end && (!ev->text || !*ev->text))
            return gms_error_set(err, GMS_EFORMAT,
                                 "%s event: a scope begins without a name (give its module path)",
                                 k);
        return 0;
    case GMT_CALL:
    case GMT_MUTATE:
        break;
    default:
        return gms_error_set(err, GMS_EFORMAT, "event: unknown kind %d", (int)ev->kind);
    }
    if (!ev->op)
        return gms_error_set(err, GMS_EFORMAT, "%s event: op name is NULL", k);
    if (ev->n_inputs && !ev->inputs)
        return gms_error_set(err, GMS_EFORMAT, "%s %s: n_inputs is %u but inputs is NULL", k,
                             ev->op, ev->n_inputs);
    if (ev->kind == GMT_CALL) {
        if (ev->n_outputs && !ev->outputs)
            return gms_error_set(err, GMS_EFORMAT, "%s %s: n_outputs is %u but outputs is NULL",
                                 k, ev->op, ev->n_outputs);
        for (uint32_t i = 0; i < ev->n_outputs; i++) {
            int32_t a = ev->outputs[i].alias_of;
            if (a < -1 || (a >= 0 && (uint32_t)a >= ev->n_inputs))
                return gms_error_set(err, GMS_EFORMAT,
                                     "%s %s: output %u: alias_of %d is not -1 or an input index "
                                     "(the op has %u inputs)",
                                     k, ev->op, i, (int)a, ev->n_inputs);
        }
    } else {
        if (ev->n_mutated && !ev->mutated)
            return gms_error_set(err, GMS_EFORMAT, "%s %s: n_mutated is %u but mutated is NULL",
                                 k, ev->op, ev->n_mutated);
        for (uint32_t i = 0; i < ev->n_mutated; i++)
            if (ev->mutated[i] >= ev->n_inputs)
                return gms_error_set(err, GMS_EFORMAT,
                                     "%s %s: mutated[%u] = %u is not an input index (the op has "
                                     "%u inputs)",
                                     k, ev->op, i, ev->mutated[i], ev->n_inputs);
    }
    return 0;
}
