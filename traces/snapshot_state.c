/*
 * snapshot_state: the allocator's state before a snapshot's first event (snapshot.h).
 *
 * The events are undone from the final state backwards, as MemoryViz.js's "Allocator State
 * History" does: undoing an alloc removes its block, undoing a free_completed puts the block
 * back, undoing a segment_alloc (segment_map) removes the segment, undoing a segment_free
 * (segment_unmap) puts it back. What is left is what the allocator held before the recording.
 *
 * The events give requested sizes, not block sizes. A block the trace frees (so it is not in
 * the final segments) gets the size the allocator's rules give: round_size (512-byte
 * multiples), and in the large pool the rest of the free space up to the next block when that
 * rest is at most 1 MiB, because should_split never splits such a rest off (with
 * max_split_size, an oversize block keeps up to 20 MiB: get_free_block's
 * max_non_split_rounding). The rules are the allocator's (c10/cuda/CUDACachingAllocator.cpp
 * round_size, should_split); sim/memory_caching.c models the same, traces/ cannot use sim/.
 */
#include <stdlib.h>
#include <string.h>

#include "addr_map.h"
#include "snapshot.h"

#define KMIN_BLOCK 512u
#define KSMALL_SIZE (UINT64_C(1) << 20)
#define KSMALL_BUFFER (UINT64_C(2) << 20)
#define KLARGE_BUFFER (UINT64_C(20) << 20)

/* ---- the backward walk ------------------------------------------------------------------ */

typedef struct live {
    uint64_t addr, size, requested;
    uint8_t known, alive, freed_only;
} live;

typedef struct seg {
    uint64_t addr, size;
    uint8_t small, alive;
} seg;

static void problem(snap_state *st, const char *what, size_t idx, uint64_t addr)
{
    if (!st->problems++)
        snprintf(st->msg, sizeof st->msg, "event %zu: %s at 0x%llx", idx, what,
                 (unsigned long long)addr);
}

/* Expandable segments map and unmap pages at a segment's ends (or inside it), and the final
 * `segments` list each mapped range as one: undone as MemoryViz.js's unmap_segment and
 * map_segment do, by ranges (a linear search: such snapshots have few segment events).
 * Undoing a segment_map cuts [a, a + size) out of the segment holding it: 0, 1 when no
 * segment holds it, -1 out of memory. */
static int undo_map(seg *S, size_t *ns, addr_map *sm, uint64_t a, uint64_t size)
{
    size_t i = 0;
    while (i < *ns && !(S[i].alive && S[i].addr <= a && a + size <= S[i].addr + S[i].size))
        i++;
    if (i == *ns)
        return 1;
    uint64_t end = S[i].addr + S[i].size;
    if (S[i].addr == a) {
        addr_map_take(sm, a, NULL);
        S[i].addr += size;
        S[i].size -= size;
        if (!S[i].size)
            S[i].alive = 0;
        else if (addr_map_put(sm, S[i].addr, (uint32_t)i))
            return -1;
    } else if (a + size == end) {
        S[i].size -= size;
    } else {
        S[i].size = a - S[i].addr;
        S[*ns] = (seg){a + size, end - a - size, S[i].small, 1};
        if (addr_map_put(sm, a + size, (uint32_t)*ns))
            return -1;
        ++*ns;
    }
    return 0;
}

/* Undoing a segment_unmap puts [a, a + size) back, joined to the segments it touches. */
static int undo_unmap(seg *S, size_t *ns, addr_map *sm, uint64_t a, uint64_t size, int small)
{
    size_t prev = *ns, next = *ns;
    for (size_t i = 0; i < *ns; i++)
        if (S[i].alive && S[i].addr + S[i].size == a)
            prev = i;
        else if (S[i].alive && S[i].addr == a + size)
            next = i;
    if (next < *ns) {
        addr_map_take(sm, S[next].addr, NULL);
        if (prev < *ns) {
            S[prev].size += size + S[next].size;
            S[next].alive = 0;
            return 0;
        }
        S[next].addr = a;
        S[next].size += size;
        return addr_map_put(sm, a, (uint32_t)next) ? -1 : 0;
    }
    if (prev < *ns) {
        S[prev].size += size;
        return 0;
    }
    S[*ns] = (seg){a, size, (uint8_t)small, 1};
    if (addr_map_put(sm, a, (uint32_t)*ns))
        return -1;
    ++*ns;
    return 0;
}

static int by_addr_blk(const void *a, const void *b)
{
    const snap_seed_block *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int by_addr_seg(const void *a, const void *b)
{
    const snap_seed_segment *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static uint64_t round_size(uint64_t n)
{
    return n < KMIN_BLOCK ? KMIN_BLOCK : (n + KMIN_BLOCK - 1) / KMIN_BLOCK * KMIN_BLOCK;
}

/* Sizes of the blocks the final state does not show, from their requests (see the top). */
static void infer_sizes(const snapshot *s, snap_state *st)
{
    size_t g = 0;
    for (size_t i = 0; i < st->nblk; i++) {
        snap_seed_block *b = &st->blk[i];
        while (g < st->nseg && st->seg[g].addr + st->seg[g].size <= b->addr)
            g++;
        int inside = g < st->nseg && st->seg[g].addr <= b->addr;
        if (!inside) {
            if (!st->problems++)
                snprintf(st->msg, sizeof st->msg, "a block live before the first event at "
                         "0x%llx lies in no segment", (unsigned long long)b->addr);
            continue;
        }
        if (b->size_known)
            continue;
        const snap_seed_segment *sg = &st->seg[g];
        uint64_t end = sg->addr + sg->size;
        if (i + 1 < st->nblk && st->blk[i + 1].addr < end)
            end = st->blk[i + 1].addr;
        uint64_t r = round_size(b->requested);
        b->size = r;
        if (b->addr + r > end) {
            b->size = end > b->addr ? end - b->addr : r;
            continue;
        }
        uint64_t rest = end - (b->addr + r);
        uint64_t m = s->set.max_split_size;
        if (!sg->small && rest > 0 &&
            (rest <= KSMALL_SIZE || (m != UINT64_MAX && r >= m && rest < KLARGE_BUFFER)))
            b->size = r + rest;
    }
}

int snap_initial_state(const snapshot *s, int device, snap_state *st, gms_error *err)
{
    memset(st, 0, sizeof *st);
    size_t first = 0, n = 0;
    if (device >= 0 && device < s->ndev) {
        first = s->dev_first[device];
        n = s->dev_n[device];
    }
    size_t nfs = 0, nfb = 0;
    for (size_t i = 0; i < s->nseg; i++)
        if (s->seg[i].device == device) {
            nfs++;
            nfb += s->seg[i].n_blocks;
        }
    size_t cap_l = nfb + n + 1, cap_s = nfs + n + 1;
    live *L = malloc(cap_l * sizeof *L);
    seg *S = malloc(cap_s * sizeof *S);
    addr_map lm = {0}, sm = {0};
    int rc = 0;
    if (!L || !S || addr_map_init(&lm, cap_l) || addr_map_init(&sm, cap_s)) {
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory reconstructing the initial state");
        goto out;
    }
    size_t nl = 0, ns = 0;
    for (size_t i = 0; i < s->nseg; i++) {
        const snap_segment *g = &s->seg[i];
        if (g->device != device)
            continue;
        S[ns] = (seg){g->addr, g->size, g->small, 1};
        if (addr_map_put(&sm, g->addr, ns++))
            goto oom;
        for (size_t k = 0; k < g->n_blocks; k++) {
            const snap_block *b = &s->blk[g->first_block + k];
            if (b->state == SNAP_INACTIVE)
                continue;
            L[nl] = (live){b->addr, b->size, b->requested, 1, 1, 0};
            if (addr_map_put(&lm, b->addr, nl++))
                goto oom;
        }
    }
    for (size_t j = n; j-- > 0;) {
        const snap_event *e = &s->ev[first + j];
        uint64_t v;
        switch (e->action) {
        case SNAP_ALLOC:
            if (!addr_map_get(&lm, e->addr, &v) || !L[v].alive) {
                problem(st, "alloc of a block that is neither live at the end nor freed later",
                        j, e->addr);
                break;
            }
            L[v].alive = 0;
            addr_map_take(&lm, e->addr, NULL);
            break;
        case SNAP_FREE_COMPLETED:
            if (addr_map_get(&lm, e->addr, &v) && L[v].alive) {
                problem(st, "free of a block that is live again before its next alloc", j,
                        e->addr);
                break;
            }
            L[nl] = (live){e->addr, 0, e->size, 0, 1, 1};
            if (addr_map_put(&lm, e->addr, nl++))
                goto oom;
            break;
        case SNAP_SEGMENT_MAP: {
            int u = undo_map(S, &ns, &sm, e->addr, e->size);
            if (u < 0)
                goto oom;
            if (u)
                problem(st, "segment_map of a range no segment at the end holds and not "
                        "unmapped later", j, e->addr);
            break;
        }
        case SNAP_SEGMENT_UNMAP:
            if (undo_unmap(S, &ns, &sm, e->addr, e->size, e->size == KSMALL_BUFFER))
                goto oom;
            break;
        case SNAP_SEGMENT_ALLOC:
            if (!addr_map_get(&sm, e->addr, &v) || !S[v].alive) {
                problem(st, "segment_alloc of a segment absent at the end and not freed later",
                        j, e->addr);
                break;
            }
            S[v].alive = 0;
            addr_map_take(&sm, e->addr, NULL);
            break;
        case SNAP_SEGMENT_FREE:
            S[ns] = (seg){e->addr, e->size, e->size == KSMALL_BUFFER, 1};
            if (addr_map_put(&sm, e->addr, ns++))
                goto oom;
            break;
        default:
            break;
        }
    }
    st->seg = malloc((ns ? ns : 1) * sizeof *st->seg);
    st->blk = malloc((nl ? nl : 1) * sizeof *st->blk);
    if (!st->seg || !st->blk)
        goto oom;
    for (size_t i = 0; i < ns; i++)
        if (S[i].alive)
            st->seg[st->nseg++] = (snap_seed_segment){S[i].addr, S[i].size, S[i].small};
    for (size_t i = 0; i < nl; i++)
        if (L[i].alive) {
            st->blk[st->nblk++] =
                (snap_seed_block){L[i].addr, L[i].size, L[i].requested, L[i].known};
            st->freed_unallocated += L[i].freed_only;
        }
    qsort(st->seg, st->nseg, sizeof *st->seg, by_addr_seg);
    qsort(st->blk, st->nblk, sizeof *st->blk, by_addr_blk);
    infer_sizes(s, st);
    for (size_t i = 0; i < st->nseg; i++)
        st->reserved += st->seg[i].size;
    for (size_t i = 0; i < st->nblk; i++) {
        st->allocated += st->blk[i].size;
        st->requested += st->blk[i].requested;
        if (i && st->blk[i - 1].addr + st->blk[i - 1].size > st->blk[i].addr && !st->problems++)
            snprintf(st->msg, sizeof st->msg, "blocks live before the first event at 0x%llx and "
                     "0x%llx overlap", (unsigned long long)st->blk[i - 1].addr,
                     (unsigned long long)st->blk[i].addr);
    }
    goto out;
oom:
    rc = gms_error_set(err, GMS_ENOMEM, "out of memory reconstructing the initial state");
    snap_state_free(st);
out:
    free(L);
    free(S);
    addr_map_free(&lm);
    addr_map_free(&sm);
    return rc;
}

void snap_state_free(snap_state *st)
{
    free(st->seg);
    free(st->blk);
    st->seg = NULL;
    st->blk = NULL;
    st->nseg = st->nblk = 0;
}
