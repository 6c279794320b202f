/* opt_hostcost: the --host-estimate parser, the per-op estimate's arithmetic, and taking
 * cost_host from a host trace's graph (match node for node, or say where it differs). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "opt_hostcost.h"

static int parse(const char *s, opt_host_estimate *e, gms_error *err)
{
    memset(err, 0, sizeof *err);
    return opt_host_estimate_parse(s, e, err);
}

START_TEST(test_parse_accepts_each_form)
{
    opt_host_estimate e;
    gms_error err;
    ck_assert_int_eq(parse("slowdown=4", &e, &err), 0);
    ck_assert(e.slowdown == 4 && e.gbps == 0);
    ck_assert_int_eq(parse("roofline=50", &e, &err), 0);
    ck_assert(e.slowdown == 0 && e.gbps == 50);
    ck_assert_int_eq(parse("roofline=12.5,slowdown=0.5", &e, &err), 0);
    ck_assert(e.slowdown == 0.5 && e.gbps == 12.5);
}
END_TEST

START_TEST(test_parse_refuses_with_a_reason)
{
    static const struct {
        const char *spec, *says;
    } bad[] = {
        {"", "empty"},
        {"slowdown", "KEY=VALUE"},
        {"slowdown=", "number after"},
        {"slowdown=0", "above 0"},
        {"slowdown=-2", "above 0"},
        {"slowdown=inf", "above 0"},
        {"slowdown=4x", "above 0"},
        {"roofline=0", "at least"},
        {"roofline=2e6", "at most"},
        {"roofline=50,100", "no FLOPs"},
        {"slowdown=1,slowdown=2", "twice"},
        {"slowdown=1,", "empty item"},
        {"flops=3", "unknown estimate"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        opt_host_estimate e = {7, 7};
        gms_error err;
        ck_assert_msg(parse(bad[i].spec, &e, &err) == GMS_EINVAL, "'%s' accepted", bad[i].spec);
        ck_assert_msg(strstr(err.msg, bad[i].says), "'%s': %s", bad[i].spec, err.msg);
        ck_assert(e.slowdown == 7 && e.gbps == 7); /* untouched */
    }
}
END_TEST

START_TEST(test_estimate_is_the_larger_roof)
{
    opt_host_estimate slow = {.slowdown = 4}, roof = {.gbps = 50}, both = {4, 50};
    /* 2 ms on the GPU, 500 MB touched: 8 ms slowed down, 10 ms at 50 GB/s */
    ck_assert_double_eq_tol(opt_host_estimate_op(&slow, 2000000, 500000000), 8.0, 1e-12);
    ck_assert_double_eq_tol(opt_host_estimate_op(&roof, 2000000, 500000000), 10.0, 1e-12);
    ck_assert_double_eq_tol(opt_host_estimate_op(&both, 2000000, 500000000), 10.0, 1e-12);
    ck_assert_double_eq_tol(opt_host_estimate_op(&both, 3000000, 500000000), 12.0, 1e-12);
    ck_assert_double_eq_tol(opt_host_estimate_op(&roof, 3000000, 0), 0.0, 1e-12);
}
END_TEST

/* a -> b, b and a -> c; costs scaled by k, b's bytes bbytes */
static opt_graph *chain(double k, uint64_t bbytes, const char *cname)
{
    opt_graph *g = opt_graph_new(3);
    gms_error err = {0};
    uint32_t in[2] = {0, 1};
    ck_assert_int_eq(opt_graph_set_node(g, 0, "a", 1 * k, 10, NULL, 0, &err), 0);
    ck_assert_int_eq(opt_graph_set_node(g, 1, "b", 2 * k, bbytes, in, 1, &err), 0);
    ck_assert_int_eq(opt_graph_set_node(g, 2, cname, 3 * k, 10, in, 2, &err), 0);
    ck_assert_int_eq(opt_graph_finish(g, &err), 0);
    return g;
}

START_TEST(test_take_host_costs_from_a_matching_graph)
{
    opt_graph *g = chain(1, 20, "c"), *h = chain(5, 20, "c");
    gms_error err = {0};
    ck_assert_int_eq(opt_graph_take_host(g, h, &err), 0);
    for (uint32_t i = 0; i < 3; i++) {
        ck_assert_double_eq(g->nodes[i].cost, i + 1.0);
        ck_assert_double_eq(g->nodes[i].cost_host, 5 * (i + 1.0));
    }
    opt_graph_free(g);
    opt_graph_free(h);
}
END_TEST

START_TEST(test_take_host_names_the_first_difference)
{
    opt_graph *g = chain(1, 20, "c");
    struct {
        opt_graph *h;
        const char *says;
    } cases[] = {
        {chain(5, 21, "c"), "node 1 (\"b\"): 20 bytes here, 21 in the host trace"},
        {chain(5, 20, "d"), "node 2 (\"c\"): named \"d\" in the host trace"},
        {opt_graph_new(2), "node 0 (\"a\"): named \"\""},
        {chain(5, 20, "c"), "inputs differ"},
    };
    gms_error err = {0};
    /* the last host graph: c reads only b */
    cases[3].h->nodes[2].n_inputs = 1;
    cases[3].h->nodes[2].inputs[0] = 1;
    for (size_t i = 0; i < 4; i++) {
        memset(&err, 0, sizeof err);
        ck_assert_int_eq(opt_graph_take_host(g, cases[i].h, &err), GMS_EFORMAT);
        ck_assert_msg(strstr(err.msg, cases[i].says), "case %zu: %s", i, err.msg);
        for (uint32_t k = 0; k < 3; k++)
            ck_assert(g->nodes[k].cost_host < 0); /* unchanged */
        opt_graph_free(cases[i].h);
    }
    /* a host graph with a node more: the count is named */
    opt_graph *big = opt_graph_new(4);
    for (uint32_t i = 0; i < 3; i++)
        ck_assert_int_eq(opt_graph_set_node(big, i, g->nodes[i].name, 1, g->nodes[i].bytes,
                                            g->nodes[i].inputs, g->nodes[i].n_inputs, &err), 0);
    ck_assert_int_eq(opt_graph_take_host(g, big, &err), GMS_EFORMAT);
    ck_assert_msg(strstr(err.msg, "has 4 nodes, the trace's 3"), "%s", err.msg);
    opt_graph_free(big);
    opt_graph_free(g);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("opt_hostcost");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_parse_accepts_each_form);
    tcase_add_test(tc, test_parse_refuses_with_a_reason);
    tcase_add_test(tc, test_estimate_is_the_larger_roof);
    tcase_add_test(tc, test_take_host_costs_from_a_matching_graph);
    tcase_add_test(tc, test_take_host_names_the_first_difference);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(suite());
}
