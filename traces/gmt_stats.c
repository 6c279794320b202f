/* gmt_stats: counters over a stream of gmt events (see gmt_stats.h). */
#include "gmt_stats.h"

#include <stdlib.h>
#include <string.h>

#include "gmt_namemap.h"

struct gmt_stats {
    uint64_t events;
    uint64_t by_kind[GMT_KIND_COUNT];
    uint64_t outputs, views;
    uint64_t constant_bytes;
    uint64_t scopes, scope_depth, scope_max_depth;
    gmt_namemap *ops;         /* op name -> count */
    gmt_namemap *annotations; /* annotation text -> count */
};

gmt_stats *gmt_stats_new(void)
{
    gmt_stats *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->ops = gmt_namemap_new();
    s->annotations = gmt_namemap_new();
    if (!s->ops || !s->annotations) {
        gmt_stats_free(s);
        return NULL;
    }
    return s;
}

void gmt_stats_free(gmt_stats *s)
{
    if (!s)
        return;
    gmt_namemap_free(s->ops);
    gmt_namemap_free(s->annotations);
    free(s);
}

int gmt_stats_add(gmt_stats *s, const gmt_event *ev, gms_error *err)
{
    int k = (int)ev->kind;
    if (k <= 0 || k >= GMT_KIND_COUNT)
        k = 0;
    /* Tables first, so that a failed insertion leaves every counter untouched. */
    if ((k == GMT_CALL || k == GMT_MUTATE) && ev->op &&
        gmt_namemap_add(s->ops, ev->op, strlen(ev->op), 1) < 0)
        return gms_error_set(err, GMS_ENOMEM, "out of memory counting op names");
    if (k == GMT_ANNOTATE && ev->text &&
        gmt_namemap_add(s->annotations, ev->text, strlen(ev->text), 1) < 0)
        return gms_error_set(err, GMS_ENOMEM, "out of memory counting annotations");
    s->events++;
    s->by_kind[k]++;
    if (k == GMT_CONSTANT)
        s->constant_bytes += ev->size;
    if (k == GMT_SCOPE && !ev->scope_end) {
        s->scopes++;
        if (++s->scope_depth > s->scope_max_depth)
            s->scope_max_depth = s->scope_depth;
    } else if (k == GMT_SCOPE && s->scope_depth > 0) {
        s->scope_depth--;
    }
    if (k == GMT_CALL && ev->outputs) {
        s->outputs += ev->n_outputs;
        for (uint32_t i = 0; i < ev->n_outputs; i++)
            s->views += ev->outputs[i].alias_of >= 0;
    }
    return 0;
}

uint64_t gmt_stats_events(const gmt_stats *s)
{
    return s->events;
}

uint64_t gmt_stats_kind(const gmt_stats *s, gmt_kind k)
{
    return (int)k >= 0 && (int)k < GMT_KIND_COUNT ? s->by_kind[k] : 0;
}

uint64_t gmt_stats_ops(const gmt_stats *s)
{
    return s->by_kind[GMT_CALL] + s->by_kind[GMT_MUTATE];
}

uint64_t gmt_stats_outputs(const gmt_stats *s)
{
    return s->outputs;
}

uint64_t gmt_stats_views(const gmt_stats *s)
{
    return s->views;
}

uint64_t gmt_stats_scopes(const gmt_stats *s)
{
    return s->scopes;
}

uint64_t gmt_stats_scope_depth(const gmt_stats *s)
{
    return s->scope_max_depth;
}

uint64_t gmt_stats_constant_bytes(const gmt_stats *s)
{
    return s->constant_bytes;
}

size_t gmt_stats_op_names(const gmt_stats *s)
{
    return gmt_namemap_count(s->ops);
}

const char *gmt_stats_op_name_at(const gmt_stats *s, size_t i, uint64_t *count)
{
    if (count)
        *count = gmt_namemap_value(s->ops, i);
    return gmt_namemap_key(s->ops, i, NULL);
}

size_t gmt_stats_annotations(const gmt_stats *s)
{
    return gmt_namemap_count(s->annotations);
}

const char *gmt_stats_annotation_at(const gmt_stats *s, size_t i, uint64_t *count)
{
    if (count)
        *count = gmt_namemap_value(s->annotations, i);
    return gmt_namemap_key(s->annotations, i, NULL);
}
