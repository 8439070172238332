// FreeType (Debian's libfreetype-dev): opening and validating font files, reading their names and metrics.
#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_TRUETYPE_TABLES_H
