/* placeholder so the library has a source until its first real file lands; delete then */
typedef int gms_placeholder_registry_placeholder;
