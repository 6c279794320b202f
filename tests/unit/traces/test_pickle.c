/* pickle reader and writer (traces/pickle*.c) on pickles Python wrote (the bytes below come
 * from the pickle.dumps call above each) and on hand-made ones: every accepted opcode, ints of
 * every width, shared memo objects, batches, gzip, and the refusals (code, truncation, bad memo). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "check_run.h"
#include "pickle.h"

/* pickle.dumps({'a': [1, -1, 300, 70000, -70000, 2**40, -2**40], 'b': (None, True, False),
 *               's': 'h\u00e9', 'y': 'no bytes in protocol 2', 'f': 1.5}, protocol=2)
 * (protocol 2 writes bytes as a call of _codecs.encode: refused, see below) */
static const char P2[] = "\x80\x02\x7d\x71\x00\x28\x58\x01\x00\x00\x00\x61\x71\x01\x5d\x71\x02\x28\x4b\x01\x4a\xff\xff\xff\xff\x4d\x2c\x01\x4a\x70\x11\x01\x00\x4a\x90\xee\xfe\xff\x8a\x06\x00\x00\x00\x00\x00\x01\x8a\x06\x00\x00\x00\x00\x00\xff\x65\x58\x01\x00\x00\x00\x62\x71\x03\x4e\x88\x89\x87\x71\x04\x58\x01\x00\x00\x00\x73\x71\x05\x58\x03\x00\x00\x00\x68\xc3\xa9\x71\x06\x58\x01\x00\x00\x00\x79\x71\x07\x58\x16\x00\x00\x00\x6e\x6f\x20\x62\x79\x74\x65\x73\x20\x69\x6e\x20\x70\x72\x6f\x74\x6f\x63\x6f\x6c\x20\x32\x71\x08\x58\x01\x00\x00\x00\x66\x71\x09\x47\x3f\xf8\x00\x00\x00\x00\x00\x00\x75\x2e";
/* pickle.dumps({'a': [1, -1, 300, 70000, -70000, 1099511627776, -1099511627776], 'b': (None, True, False), 's': 'hé', 'y': b'\x00\x01', 'f': 1.5}, protocol=5) */
static const char P5[] = "\x80\x05\x95\x5a\x00\x00\x00\x00\x00\x00\x00\x7d\x94\x28\x8c\x01\x61\x94\x5d\x94\x28\x4b\x01\x4a\xff\xff\xff\xff\x4d\x2c\x01\x4a\x70\x11\x01\x00\x4a\x90\xee\xfe\xff\x8a\x06\x00\x00\x00\x00\x00\x01\x8a\x06\x00\x00\x00\x00\x00\xff\x65\x8c\x01\x62\x94\x4e\x88\x89\x87\x94\x8c\x01\x73\x94\x8c\x03\x68\xc3\xa9\x94\x8c\x01\x79\x94\x43\x02\x00\x01\x94\x8c\x01\x66\x94\x47\x3f\xf8\x00\x00\x00\x00\x00\x00\x75\x2e";
/* pickle.dumps([1267650600228229401496703205376, -1267650600228229401496703205376, 9223372036854775807, -9223372036854775808, 18446744073709551615, 0], protocol=4) */
static const char BIG[] = "\x80\x04\x95\x44\x00\x00\x00\x00\x00\x00\x00\x5d\x94\x28\x8a\x0d\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x10\x8a\x0d\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xf0\x8a\x08\xff\xff\xff\xff\xff\xff\xff\x7f\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x80\x8a\x09\xff\xff\xff\xff\xff\xff\xff\xff\x00\x4b\x00\x65\x2e";
/* pickle.dumps([(), (1,), (1, 2), (1, 2, 3), (1, 2, 3, 4)], protocol=4) */
static const char TUPLES[] = "\x80\x04\x95\x23\x00\x00\x00\x00\x00\x00\x00\x5d\x94\x28\x29\x4b\x01\x85\x94\x4b\x01\x4b\x02\x86\x94\x4b\x01\x4b\x02\x4b\x03\x87\x94\x28\x4b\x01\x4b\x02\x4b\x03\x4b\x04\x74\x94\x65\x2e";
/* x = [7]; pickle.dumps({"x": x, "y": x, "k": ["frames", "frames"]}, protocol=4) */
static const char SHARED[] = "\x80\x04\x95\x27\x00\x00\x00\x00\x00\x00\x00\x7d\x94\x28\x8c\x01\x78\x94\x5d\x94\x4b\x07\x61\x8c\x01\x79\x94\x68\x02\x8c\x01\x6b\x94\x5d\x94\x28\x8c\x06\x66\x72\x61\x6d\x65\x73\x94\x68\x06\x65\x75\x2e";
/* pickle.dumps(b'\x00\x01', protocol=2): bytes through _codecs.encode */
static const char BYTES_P2[] = "\x80\x02\x63\x5f\x63\x6f\x64\x65\x63\x73\x0a\x65\x6e\x63\x6f\x64\x65\x0a\x71\x00\x58\x02\x00\x00\x00\x00\x01\x71\x01\x58\x06\x00\x00\x00\x6c\x61\x74\x69\x6e\x31\x71\x02\x86\x71\x03\x52\x71\x04\x2e";
/* pickle.dumps(collections.OrderedDict(a=1), protocol=2) */
static const char GLOBAL_P2[] = "\x80\x02\x63\x63\x6f\x6c\x6c\x65\x63\x74\x69\x6f\x6e\x73\x0a\x4f\x72\x64\x65\x72\x65\x64\x44\x69\x63\x74\x0a\x71\x00\x29\x52\x71\x01\x58\x01\x00\x00\x00\x61\x71\x02\x4b\x01\x73\x2e";
/* pickle.dumps({1, 2}, protocol=4) */
static const char SET_P4[] = "\x80\x04\x95\x09\x00\x00\x00\x00\x00\x00\x00\x8f\x94\x28\x4b\x01\x4b\x02\x90\x2e";

#define PARSE(arr, doc) pk_parse(arr, sizeof arr - 1, #arr, doc, &err)

static int64_t ival(const pk_doc *d, pk_ref r)
{
    int64_t v = -12345;
    ck_assert_int_eq(pk_int(d, r, &v), 0);
    return v;
}

static void check_sample(const pk_doc *d, int bytes)
{
    pk_ref root = pk_root(d);
    ck_assert_int_eq(pk_type_of(d, root), PK_DICT);
    ck_assert_uint_eq(pk_len(d, root), 5);
    pk_ref a = pk_get(d, root, "a");
    ck_assert_int_eq(pk_type_of(d, a), PK_LIST);
    ck_assert_uint_eq(pk_len(d, a), 7);
    const int64_t want[] = {1, -1, 300, 70000, -70000, INT64_C(1) << 40, -(INT64_C(1) << 40)};
    for (size_t i = 0; i < 7; i++)
        ck_assert_int_eq(ival(d, pk_item(d, a, i)), want[i]);
    pk_ref b = pk_get(d, root, "b");
    ck_assert_int_eq(pk_type_of(d, b), PK_TUPLE);
    ck_assert_int_eq(pk_type_of(d, pk_item(d, b, 0)), PK_NONE);
    ck_assert_int_eq(pk_type_of(d, pk_item(d, b, 1)), PK_BOOL);
    ck_assert_int_eq(ival(d, pk_item(d, b, 1)), 1);
    ck_assert_int_eq(ival(d, pk_item(d, b, 2)), 0);
    size_t n;
    ck_assert_str_eq(pk_str(d, pk_get(d, root, "s"), &n), "h\xc3\xa9");
    ck_assert_uint_eq(n, 3);
    pk_ref y = pk_get(d, root, "y");
    ck_assert_int_eq(pk_type_of(d, y), bytes ? PK_BYTES : PK_STR);
    ck_assert_ptr_nonnull(pk_str(d, y, &n));
    ck_assert_uint_eq(n, bytes ? 2 : 22);
    double f = 0;
    ck_assert_int_eq(pk_float(d, pk_get(d, root, "f"), &f), 0);
    ck_assert(f == 1.5);
    ck_assert_uint_eq(pk_get(d, root, "missing"), PK_NULL);
}

START_TEST(test_pickle_reads_protocol_2_and_5_dicts_lists_tuples_scalars)
{
    gms_error err;
    pk_doc *d;
    ck_assert_int_eq(PARSE(P2, &d), 0);
    check_sample(d, 0);
    pk_free(d);
    ck_assert_int_eq(PARSE(P5, &d), 0);
    check_sample(d, 1);
    pk_free(d);
}
END_TEST

START_TEST(test_pickle_ints_of_any_size_keep_their_value_or_bytes)
{
    gms_error err;
    pk_doc *d;
    ck_assert_int_eq(PARSE(BIG, &d), 0);
    pk_ref l = pk_root(d);
    ck_assert_int_eq(pk_type_of(d, pk_item(d, l, 0)), PK_BIGINT);
    size_t n;
    const unsigned char *b = (const unsigned char *)pk_str(d, pk_item(d, l, 0), &n);
    ck_assert_uint_eq(n, 13); /* 2**100: 12 zero bytes, then 0x10 */
    ck_assert_uint_eq(b[12], 0x10);
    ck_assert_int_eq(pk_type_of(d, pk_item(d, l, 1)), PK_BIGINT);
    ck_assert_int_eq(ival(d, pk_item(d, l, 2)), INT64_MAX);
    ck_assert_int_eq(ival(d, pk_item(d, l, 3)), INT64_MIN);
    ck_assert_int_eq(pk_type_of(d, pk_item(d, l, 4)), PK_BIGINT); /* 2**64-1 */
    ck_assert_int_eq(ival(d, pk_item(d, l, 5)), 0);
    pk_free(d);
}
END_TEST

START_TEST(test_pickle_tuple_opcodes_of_every_length)
{
    gms_error err;
    pk_doc *d;
    ck_assert_int_eq(PARSE(TUPLES, &d), 0);
    pk_ref l = pk_root(d);
    for (size_t i = 0; i < 5; i++) {
        pk_ref t = pk_item(d, l, i);
        ck_assert_int_eq(pk_type_of(d, t), PK_TUPLE);
        ck_assert_uint_eq(pk_len(d, t), i);
        for (size_t j = 0; j < i; j++)
            ck_assert_int_eq(ival(d, pk_item(d, t, j)), (int64_t)j + 1);
    }
    pk_free(d);
}
END_TEST

START_TEST(test_pickle_memo_fetch_is_the_same_node)
{
    gms_error err;
    pk_doc *d;
    ck_assert_int_eq(PARSE(SHARED, &d), 0);
    pk_ref r = pk_root(d);
    ck_assert_uint_eq(pk_get(d, r, "x"), pk_get(d, r, "y"));
    pk_ref k = pk_get(d, r, "k");
    ck_assert_uint_eq(pk_item(d, k, 0), pk_item(d, k, 1));
    ck_assert_str_eq(pk_str(d, pk_item(d, k, 1), NULL), "frames");
    pk_free(d);
}
END_TEST

START_TEST(test_pickle_refuses_code_naming_the_opcode_and_offset)
{
    gms_error err;
    pk_doc *d = (pk_doc *)1;
    ck_assert_int_ne(PARSE(GLOBAL_P2, &d), 0);
    ck_assert_ptr_null(d);
    ck_assert_ptr_nonnull(strstr(err.msg, "GLOBAL"));
    ck_assert_ptr_nonnull(strstr(err.msg, "byte 2:"));
    ck_assert_int_ne(PARSE(BYTES_P2, &d), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "GLOBAL"));
    ck_assert_int_ne(PARSE(SET_P4, &d), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "EMPTY_SET"));
    ck_assert_ptr_nonnull(strstr(err.msg, "byte 11:"));
    /* the classic: cos\nsystem\n(S'echo hi'\ntR. (protocol 0 has no PROTO opcode) */
    static const char SYSTEM[] = "cos\nsystem\n(S'echo hi'\ntR.";
    ck_assert_int_ne(PARSE(SYSTEM, &d), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "GLOBAL (0x63)"));
    static const char REDUCE[] = "\x80\x04)R.";
    ck_assert_int_ne(PARSE(REDUCE, &d), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "REDUCE"));
    ck_assert_ptr_nonnull(strstr(err.msg, "byte 3:"));
    static const char BUILD[] = "\x80\x04}}b.";
    ck_assert_int_ne(PARSE(BUILD, &d), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "BUILD"));
}
END_TEST

START_TEST(test_pickle_refuses_truncation_bad_memo_and_bad_structure)
{
    gms_error err;
    pk_doc *d;
    /* every proper prefix of a valid pickle is refused */
    for (size_t n = 0; n + 1 < sizeof P5 - 1; n++) {
        ck_assert_int_ne(pk_parse(P5, n, "cut", &d, &err), 0);
        ck_assert_ptr_null(d);
    }
    ck_assert_ptr_nonnull(strstr(err.msg, "ends before its STOP"));
    static const char BADGET[] = "\x80\x04h\x05.";
    ck_assert_int_ne(PARSE(BADGET, &d), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "memo fetch"));
    static const char BIGPUT[] = "\x80\x04Nr\xff\xff\xff\x7f.";
    ck_assert_int_ne(PARSE(BIGPUT, &d), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "memo index"));
    static const char APPEND_TO_DICT[] = "\x80\x04}K\x01" "a.";
    ck_assert_int_ne(PARSE(APPEND_TO_DICT, &d), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "not a list"));
    static const char TWO_LEFT[] = "\x80\x04NN.";
    ck_assert_int_ne(PARSE(TWO_LEFT, &d), 0);
    static const char NOMARK[] = "\x80\x04]e.";
    ck_assert_int_ne(PARSE(NOMARK, &d), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "MARK"));
    static const char PROTO9[] = "\x80\x09N.";
    ck_assert_int_ne(PARSE(PROTO9, &d), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "newer than 5"));
    static const char ODD[] = "\x80\x04}(K\x01u.";
    ck_assert_int_ne(PARSE(ODD, &d), 0);
    /* nothing reaches below a MARK (Python moves the stack aside): POP, TUPLE1, APPEND */
    static const char POP_UNDER_MARK[] = "\x80\x04N(0N1.";
    ck_assert_int_ne(PARSE(POP_UNDER_MARK, &d), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "POP"));
    static const char TUPLE_UNDER_MARK[] = "\x80\x04N(\x85)d.";
    ck_assert_int_ne(PARSE(TUPLE_UNDER_MARK, &d), 0);
    static const char APPEND_UNDER_MARK[] = "\x80\x04](N)a1.";
    ck_assert_int_ne(PARSE(APPEND_UNDER_MARK, &d), 0);
    /* a string longer than the input is never allocated */
    static const char HUGE_STR[] = "\x80\x04X\xff\xff\xff\x7f.";
    ck_assert_int_ne(PARSE(HUGE_STR, &d), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "ends before"));
}
END_TEST

/* A list filled in three APPENDS batches with nested lists completed between them: the
 * items come back in order and contiguous. Hand-made: [[0], [1], ..., [2499]]. */
START_TEST(test_pickle_batches_interleaved_with_nested_lists_flatten_in_order)
{
    size_t cap = 64 + 2500 * 8, n = 0;
    char *b = malloc(cap);
    ck_assert_ptr_nonnull(b);
    b[n++] = (char)0x80;
    b[n++] = 4;
    b[n++] = ']';
    for (int i = 0; i < 2500; i++) {
        if (i % 1000 == 0)
            b[n++] = '(';
        b[n++] = ']';
        b[n++] = 'M';
        b[n++] = (char)(i & 0xff);
        b[n++] = (char)(i >> 8);
        b[n++] = 'a';
        if (i % 1000 == 999 || i == 2499)
            b[n++] = 'e';
    }
    b[n++] = '.';
    gms_error err;
    pk_doc *d;
    ck_assert_int_eq(pk_parse(b, n, "batches", &d, &err), 0);
    pk_ref l = pk_root(d);
    ck_assert_uint_eq(pk_len(d, l), 2500);
    for (size_t i = 0; i < 2500; i++) {
        pk_ref x = pk_item(d, l, i);
        ck_assert_uint_eq(pk_len(d, x), 1);
        ck_assert_int_eq(ival(d, pk_item(d, x, 0)), (int64_t)i);
    }
    pk_free(d);
    free(b);
}
END_TEST

static void tmpname(char *buf, size_t n, const char *tag)
{
    snprintf(buf, n, "%s/test_pickle_%s_%ld", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             tag, (long)getpid());
}

START_TEST(test_pickle_loads_plain_and_gzip_files)
{
    char path[256];
    tmpname(path, sizeof path, "gz");
    gzFile g = gzopen(path, "wb");
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(gzwrite(g, P5, sizeof P5 - 1), (int)(sizeof P5 - 1));
    gzclose(g);
    ck_assert_int_eq(pk_sniff(path), 1);
    gms_error err;
    pk_doc *d;
    ck_assert_int_eq(pk_load(path, &d, &err), 0);
    check_sample(d, 1);
    pk_free(d);
    FILE *f = fopen(path, "wb");
    fwrite(P2, 1, sizeof P2 - 1, f);
    fclose(f);
    ck_assert_int_eq(pk_load(path, &d, &err), 0);
    check_sample(d, 0);
    pk_free(d);
    f = fopen(path, "wb");
    fputs("{\"traceEvents\": []}", f);
    fclose(f);
    ck_assert_int_eq(pk_sniff(path), 0);
    remove(path);
    ck_assert_int_ne(pk_load(path, &d, &err), 0);
    ck_assert_int_eq(pk_sniff(path), 0);
}
END_TEST

START_TEST(test_pickle_writer_round_trips_through_the_reader)
{
    char path[256];
    tmpname(path, sizeof path, "w");
    gms_error err;
    pk_writer *w;
    ck_assert_int_eq(pk_writer_open(path, &w, &err), 0);
    pk_w_dict(w);
    pk_w_str(w, "ints");
    pk_w_list(w);
    const int64_t v[] = {0, 255, 256, 65535, 65536, -1, INT32_MIN, INT32_MAX,
                         INT64_C(140000000000000), -(INT64_C(1) << 50), INT64_MIN, INT64_MAX};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        pk_w_int(w, v[i]);
    pk_w_uint(w, UINT64_MAX);
    pk_w_end(w);
    pk_w_str(w, "t");
    pk_w_tuple(w);
    pk_w_int(w, 0);
    pk_w_int(w, 0);
    pk_w_end(w);
    pk_w_str(w, "misc");
    pk_w_list(w);
    pk_w_float(w, -2.25);
    pk_w_bool(w, 1);
    pk_w_bool(w, 0);
    pk_w_none(w);
    pk_w_str(w, "ints"); /* memoized: written once */
    pk_w_end(w);
    pk_w_end(w);
    ck_assert_int_eq(pk_writer_close(w, 0, &err), 0);
    pk_doc *d;
    ck_assert_int_eq(pk_load(path, &d, &err), 0);
    pk_ref r = pk_root(d), l = pk_get(d, r, "ints");
    ck_assert_uint_eq(pk_len(d, l), sizeof v / sizeof *v + 1);
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        ck_assert_int_eq(ival(d, pk_item(d, l, i)), v[i]);
    ck_assert_int_eq(pk_type_of(d, pk_item(d, l, sizeof v / sizeof *v)), PK_BIGINT);
    ck_assert_uint_eq(pk_len(d, pk_get(d, r, "t")), 2);
    pk_ref m = pk_get(d, r, "misc");
    double f;
    ck_assert_int_eq(pk_float(d, pk_item(d, m, 0), &f), 0);
    ck_assert(f == -2.25);
    ck_assert_int_eq(ival(d, pk_item(d, m, 1)), 1);
    ck_assert_int_eq(pk_type_of(d, pk_item(d, m, 2)), PK_BOOL);
    ck_assert_int_eq(pk_type_of(d, pk_item(d, m, 3)), PK_NONE);
    ck_assert_uint_eq(pk_item(d, m, 4), pk_key(d, r, 0)); /* the same memoized string */
    pk_free(d);
    /* an unbalanced writer leaves nothing behind */
    remove(path);
    ck_assert_int_eq(pk_writer_open(path, &w, &err), 0);
    pk_w_list(w);
    ck_assert_int_ne(pk_writer_close(w, 0, &err), 0);
    ck_assert_int_ne(access(path, F_OK), 0);
    ck_assert_int_eq(pk_writer_open(path, &w, &err), 0);
    pk_w_none(w);
    ck_assert_int_eq(pk_writer_close(w, 1, &err), 0);
    ck_assert_int_ne(access(path, F_OK), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pickle");
    TCase *tc = tcase_create("pickle");
    tcase_add_test(tc, test_pickle_reads_protocol_2_and_5_dicts_lists_tuples_scalars);
    tcase_add_test(tc, test_pickle_ints_of_any_size_keep_their_value_or_bytes);
    tcase_add_test(tc, test_pickle_tuple_opcodes_of_every_length);
    tcase_add_test(tc, test_pickle_memo_fetch_is_the_same_node);
    tcase_add_test(tc, test_pickle_refuses_code_naming_the_opcode_and_offset);
    tcase_add_test(tc, test_pickle_refuses_truncation_bad_memo_and_bad_structure);
    tcase_add_test(tc, test_pickle_batches_interleaved_with_nested_lists_flatten_in_order);
    tcase_add_test(tc, test_pickle_loads_plain_and_gzip_files);
    tcase_add_test(tc, test_pickle_writer_round_trips_through_the_reader);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
