/* sample.c: lookups in the built-in samples table (see sample.h; data in build/sample_data.c). */
#include "sparkplan/sample.h"

#include <string.h>

const struct sample_file *sample_find(const char *name)
{
    for (size_t i = 0; i < n_sample_files; i++)
        if (strcmp(sample_files[i].name, name) == 0)
            return &sample_files[i];
    return NULL;
}
