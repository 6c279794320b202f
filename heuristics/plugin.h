/*
 * plugin: policies loaded at run time from shared objects (docs/plugins.md), and the one
 * name-or-path resolution every command uses to turn a --policy argument into a policy.
 *
 * A loaded plugin stays loaded until the process exits (its policy may be in use on any
 * thread). Its identity in run keys is pol_id(): "NAME@HASH", the plugin's own policy name
 * and a 64-bit FNV-1a hash of the .so's bytes, so a rebuilt plugin never matches old results;
 * pol_find() accepts that id (and the path it was loaded from) once the plugin is loaded.
 */
#ifndef POL_PLUGIN_H
#define POL_PLUGIN_H

#include <stddef.h>

#include "gms_error.h"

struct sim_policy;

/* Whether a --policy argument names a shared object (contains '/' or ends in ".so"). */
int pol_is_path(const char *name_or_path);

/* A built-in policy by name, or the plugin at a path (loaded on first use, checked: ABI
 * version, entry symbol, a well-formed policy whose name is no built-in's). On failure *out is
 * NULL and err says what, where and how to fix. */
int pol_resolve(const char *name_or_path, const struct sim_policy **out, gms_error *err);

/* The run-key identity of a policy: its name for a built-in one, "NAME@HASH" for a plugin. */
const char *pol_id(const struct sim_policy *p);
/* Whether p was loaded from a plugin, and the path it came from (NULL for a built-in). */
const char *pol_plugin_path(const struct sim_policy *p);

/* For registry.c: a loaded plugin by id or load path, or NULL. */
const struct sim_policy *pol_plugin_find(const char *id_or_path);

#endif
