/*
 * optimal_improve: the window search in optimal's text and JSON (optimal_improve.h).
 */
#include "optimal_improve.h"

#include <stdio.h>
#include <string.h>

static void label(const char *name, int width, int colons)
{
    char l[64];
    snprintf(l, sizeof l, "%s%s", name, colons ? ":" : "");
    printf("%-*s", width, l);
}

/* CBC on the whole program before the window search (opt_first.h): what its slice did. */
static void first_print(const opt_answer *a, int width, int colons)
{
    label("first try", width, colons);
    if (a->first_proved)
        printf("CBC proved the answer on the whole program (%llu nonzeros) in %.2f s of its "
               "%.3g s slice: no window search\n", (unsigned long long)a->first_nonzeros,
               a->first_seconds, a->first_slice);
    else
        printf("CBC did not prove the answer on the whole program (%llu nonzeros) in its "
               "%.3g s slice (%.2f s): the window search went on\n",
               (unsigned long long)a->first_nonzeros, a->first_slice, a->first_seconds);
}

void optimal_improve_print(const opt_answer *a, int width, int colons)
{
    if (a->first_tried)
        first_print(a, width, colons);
    if (!a->improve_ran) {
        if (a->first_tried) {
            label("answer from", width, colons);
            printf("%s\n", opt_answer_from(a) ? opt_answer_from(a) : "none");
        }
        return;
    }
    label("improved", width, colons);
    printf("%s (%.9g ms) by the window search: %u of %u windows improved it, to "
           "%.9g ms, in %.1f s%s\n", a->improve_from ? a->improve_from : "the seed",
           a->improve_start, a->improve_improved, a->improve_windows,
           a->improve_improved ? a->seed_objective : a->improve_start, a->improve_seconds,
           a->improve_converged ? " (converged: its widest windows improved nothing)"
                                : " (stopped by its share of the time limit)");
    if (a->improve_failed)
        printf("%*s%u window solves failed (their solver process died); the schedule "
               "stayed as it was\n", width, "", a->improve_failed);
    label("answer from", width, colons);
    printf("%s\n", opt_answer_from(a) ? opt_answer_from(a) : "none");
}

json_t *optimal_improve_json(const opt_answer *a)
{
    if (!a->improve_ran)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "from", a->improve_from ? json_string(a->improve_from) : json_null());
    json_object_set_new(o, "from_objective", json_real(a->improve_start));
    json_object_set_new(o, "objective", json_real(a->improve_improved ? a->seed_objective
                                                                      : a->improve_start));
    json_object_set_new(o, "windows", json_integer(a->improve_windows));
    json_object_set_new(o, "windows_improved", json_integer(a->improve_improved));
    /* solves that failed (a solver process that died): the incumbent stayed */
    json_object_set_new(o, "windows_failed", json_integer(a->improve_failed));
    json_object_set_new(o, "seconds", json_real(a->improve_seconds));
    json_object_set_new(o, "converged", json_boolean(a->improve_converged));
    return o;
}

json_t *optimal_first_json(const opt_answer *a)
{
    if (!a->first_tried)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "proved", json_boolean(a->first_proved));
    json_object_set_new(o, "seconds", json_real(a->first_seconds));
    json_object_set_new(o, "slice", json_real(a->first_slice));
    json_object_set_new(o, "program_nonzeros", json_integer((json_int_t)a->first_nonzeros));
    return o;
}
