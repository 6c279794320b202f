/*
 * opt_size: the program counted before it is built agrees with the program built (columns
 * and rows exactly, nonzeros never below and at most 1.5 x), on random graphs of 2 to 60
 * nodes; and a budget that is a ratio of the trace's baseline peak (opt_graph_budget_for_
 * ratio) falls back to the graph's peak only when the graph names none.
 */
#include <check.h>
#include <stdlib.h>

#include "check_run.h"
#include "opt_graph.h"
#include "opt_program.h"
#include "opt_size.h"

static opt_graph *random_graph(uint32_t n, unsigned *seed)
{
    opt_graph *g = opt_graph_new(n);
    ck_assert_ptr_nonnull(g);
    for (uint32_t v = 0; v < n; v++) {
        uint32_t in[4], k = 0;
        for (uint32_t j = 0; j < 4 && v > 0; j++) {
            uint32_t u = (uint32_t)rand_r(seed) % v;
            int dup = 0;
            for (uint32_t q = 0; q < k; q++)
                dup |= in[q] == u;
            if (!dup && (j == 0 || rand_r(seed) % 2))
                in[k++] = u;
        }
        gms_error err = {0};
        ck_assert_int_eq(opt_graph_set_node(g, v, "n", 1.0 + rand_r(seed) % 5,
                                            1 + (uint64_t)(rand_r(seed) % 100), in, k, &err), 0);
    }
    gms_error err = {0};
    ck_assert_msg(opt_graph_finish(g, &err) == 0, "%s", err.msg);
    return g;
}

START_TEST(test_size_counts_the_program_before_it_is_built)
{
    unsigned seed = 28;
    for (int trial = 0; trial < 30; trial++) {
        uint32_t n = 2 + (uint32_t)rand_r(&seed) % 59;
        opt_graph *g = random_graph(n, &seed);
        opt_size sz;
        opt_size_program(g, &sz);
        opt_program *p = NULL;
        gms_error err = {0};
        ck_assert_msg(opt_program_build(g, opt_graph_peak(g) / 2 + 1, 1, 0, &p, &err) == 0, "%s",
                      err.msg);
        ck_assert_uint_eq(sz.cols, p->n_cols);
        ck_assert_uint_eq(sz.rows, p->n_rows);
        ck_assert_msg(sz.nonzeros >= p->n_ent && sz.nonzeros <= p->n_ent + p->n_ent / 2,
                      "n %u: counted %llu nonzeros, built %zu", n,
                      (unsigned long long)sz.nonzeros, p->n_ent);
        ck_assert(sz.bytes > 0 && sz.lp_seconds > 0);
        opt_program_free(p);
        opt_graph_free(g);
    }
}
END_TEST

START_TEST(test_ratio_is_of_the_baseline_peak_when_the_graph_names_it)
{
    unsigned seed = 3;
    opt_graph *g = random_graph(8, &seed);
    const char *of = NULL;
    uint64_t peak = opt_graph_peak(g);
    ck_assert_uint_eq(opt_graph_budget_for_ratio(g, 0.5, &of), (uint64_t)((double)peak * 0.5));
    ck_assert_str_eq(of, "graph_peak");
    g->baseline_peak = 1000;
    ck_assert_uint_eq(opt_graph_budget_for_ratio(g, 0.6, &of), 600);
    ck_assert_str_eq(of, "baseline_peak");
    ck_assert_uint_eq(opt_graph_ratio_reference(g), 1000);
    opt_graph_free(g);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("opt_size");
    TCase *tc = tcase_create("size");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_size_counts_the_program_before_it_is_built);
    tcase_add_test(tc, test_ratio_is_of_the_baseline_peak_when_the_graph_names_it);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
