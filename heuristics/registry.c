/* registry: CLI name -> policy (see registry.h). One line per policy. */
#include <string.h>

#include "plugin.h"
#include "policies.h"
#include "registry.h"

static const sim_policy *const policies[] = {
    &pol_dtr, &pol_dtr_eq, &pol_dtr_local, &pol_lru, &pol_size, &pol_msps, &pol_random,
    &pol_coop, &pol_dtr_frag, &pol_dtr_proto, &pol_dtr_proto_all,
    &pol_swap_lru, &pol_hybrid, &pol_hybrid_mix, &pol_capuchin, &pol_autoswap,
};
#define N_POLICIES (sizeof policies / sizeof policies[0])

const sim_policy *pol_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < N_POLICIES; i++)
        if (strcmp(policies[i]->name, name) == 0)
            return policies[i];
    return pol_plugin_find(name); /* a plugin already loaded by pol_resolve, by id or path */
}

size_t pol_count(void)
{
    return N_POLICIES;
}

const sim_policy *pol_at(size_t i)
{
    return i < N_POLICIES ? policies[i] : NULL;
}

const char *pol_name(const sim_policy *p)
{
    return p ? p->name : NULL;
}

const char *pol_description(const sim_policy *p)
{
    return p ? p->description : NULL;
}

int pol_needs_addresses(const sim_policy *p)
{
    return (p->needs & SIM_NEEDS_ADDRESSES) != 0;
}

int pol_swaps(const sim_policy *p)
{
    return p && (p->needs & SIM_NEEDS_SWAP) != 0; /* NULL: a planner, which never swaps */
}
