/*
 * For the opt tests: a graph from JSON text that must parse, and JSON text that must be
 * refused with a message naming what is wrong.
 */
#ifndef OPT_TEST_GRAPHS_H
#define OPT_TEST_GRAPHS_H

#include <check.h>
#include <string.h>

#include "opt_graph.h"
#include "opt_graph_json.h"

static inline opt_graph *parse(const char *json)
{
    opt_graph *g = NULL;
    gms_error err = {0};
    int rc = opt_graph_parse(json, strlen(json), "test", &g, &err);
    ck_assert_msg(rc == 0, "%s", err.msg);
    return g;
}

/* json is refused, no graph comes back, and the message holds want1 and want2. */
static inline void refused(const char *json, const char *want1, const char *want2)
{
    opt_graph *g = NULL;
    gms_error err = {0};
    ck_assert_int_ne(opt_graph_parse(json, strlen(json), "g.json", &g, &err), 0);
    ck_assert_ptr_null(g);
    ck_assert_msg(strstr(err.msg, want1) && strstr(err.msg, want2), "message: %s", err.msg);
}

#endif
