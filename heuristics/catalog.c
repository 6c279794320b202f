/* catalog: the one list of policy names (catalog.h), read from the kinds' own tables. */
#include <string.h>

#include "catalog.h"
#include "planners.h"
#include "policy.h"
#include "registry.h"

/* Solved schedules: built by opt/ and run by sim (cli/sim_checkmate.c) and sweep
 * (analysis/sweep_checkmate.c); listed here by name only, so heuristics/ stays free of opt/.
 * One line per schedule. */
static const pol_entry solved[] = {
    {"checkmate", "solved: Checkmate's optimal schedule of one iteration (MILP, CBC), replayed; "
                  "the yardstick, not a heuristic (docs/optimal.md)", POL_KIND_SOLVED},
    {"checkmate-approx", "solved: Checkmate's LP relaxation rounded to a schedule, replayed "
                         "(docs/optimal.md)", POL_KIND_SOLVED},
};
#define N_SOLVED (sizeof solved / sizeof solved[0])

size_t pol_catalog_count(void)
{
    return pol_count() + planner_count() + N_SOLVED;
}

int pol_catalog_at(size_t i, pol_entry *out)
{
    if (i < pol_count()) {
        const sim_policy *p = pol_at(i);
        *out = (pol_entry){p->name, p->description, POL_KIND_EVICT};
        return 0;
    }
    i -= pol_count();
    if (i < planner_count()) {
        const sim_planner *p = planner_at(i);
        *out = (pol_entry){p->name, p->description, POL_KIND_PLANNER};
        return 0;
    }
    i -= planner_count();
    if (i < N_SOLVED) {
        *out = solved[i];
        return 0;
    }
    return -1;
}

pol_kind pol_kind_of(const char *name)
{
    pol_entry e;
    for (size_t i = 0; name && pol_catalog_at(i, &e) == 0; i++)
        if (strcmp(e.name, name) == 0)
            return e.kind;
    return 0;
}

const char *pol_kind_label(pol_kind kind)
{
    switch (kind) {
    case POL_KIND_EVICT:
        return "eviction policy";
    case POL_KIND_PLANNER:
        return "checkpoint planner";
    case POL_KIND_SOLVED:
        return "solved schedule";
    }
    return "policy";
}

void pol_catalog_print(FILE *f)
{
    int w = 10;
    pol_entry e;
    for (size_t i = 0; pol_catalog_at(i, &e) == 0; i++)
        if ((int)strlen(e.name) > w)
            w = (int)strlen(e.name);
    for (size_t i = 0; pol_catalog_at(i, &e) == 0; i++)
        fprintf(f, "%-*s %s\n", w, e.name, e.description);
}

/* Appends the names of `kind` to buf as "a, b, c". */
static size_t append_names(char *buf, size_t len, size_t u, pol_kind kind)
{
    pol_entry e;
    int first = 1;
    for (size_t i = 0; pol_catalog_at(i, &e) == 0 && u < len; i++)
        if (e.kind == kind) {
            u += (size_t)snprintf(buf + u, len - u, "%s%s", first ? "" : ", ", e.name);
            first = 0;
        }
    return u < len ? u : len - 1;
}

/* The plural names of `kinds` joined as "a", "a and b" or "a, b and c". */
static const char *kinds_text(unsigned kinds, char *buf, size_t len)
{
    static const struct {
        pol_kind k;
        const char *plural;
    } all[] = {{POL_KIND_EVICT, "eviction policies"},
               {POL_KIND_PLANNER, "checkpoint planners"},
               {POL_KIND_SOLVED, "solved schedules"}};
    size_t n = 0, u = 0, total = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        total += (kinds & all[i].k) != 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0] && u < len; i++)
        if (kinds & all[i].k) {
            const char *sep = n == 0 ? "" : n + 1 == total ? " and " : ", ";
            u += (size_t)snprintf(buf + u, len - u, "%s%s", sep, all[i].plural);
            n++;
        }
    return buf;
}

int pol_refuse(const char *name, unsigned kinds, gms_error *err)
{
    char runs[96], other[96];
    kinds_text(kinds, runs, sizeof runs);
    kinds_text(POL_KIND_ANY & ~kinds, other, sizeof other);
    pol_kind k = pol_kind_of(name);
    if (k && !(kinds & k))
        return gms_error_set(err, GMS_EINVAL,
                             "'%s' is a %s: this command runs %s only; run it with "
                             "'gpumemsim sim --policy %s' or 'gpumemsim sweep --policies %s'",
                             name, pol_kind_label(k), runs, name, name);
    char names[700];
    size_t u = (size_t)snprintf(names, sizeof names, "valid policies: ");
    u = append_names(names, sizeof names, u, POL_KIND_EVICT);
    if (kinds & POL_KIND_PLANNER) {
        u += (size_t)snprintf(names + u, sizeof names - u, "; checkpoint planners: ");
        u = append_names(names, sizeof names, u < sizeof names ? u : sizeof names - 1,
                         POL_KIND_PLANNER);
    }
    if (kinds & POL_KIND_SOLVED) {
        u += (size_t)snprintf(names + u, sizeof names - u, "; solved schedules: ");
        u = append_names(names, sizeof names, u < sizeof names ? u : sizeof names - 1,
                         POL_KIND_SOLVED);
    }
    char rest[160] = "";
    if (*other)
        snprintf(rest, sizeof rest, "; %s run with sim and sweep only", other);
    return gms_error_set(err, GMS_EINVAL,
                         "unknown policy '%s'; %s%s; or the path of a policy plugin .so (a path "
                         "with a '/', e.g. ./%s.so); 'gpumemsim sim --list-policies' says what "
                         "each one is", name ? name : "", names, rest, name ? name : "policy");
}

int pol_in_all(const pol_entry *e, int have_addresses)
{
    if (e->kind != POL_KIND_EVICT)
        return 0;
    return have_addresses || !pol_needs_addresses(pol_find(e->name));
}
