// HarfBuzz (Debian's libharfbuzz-dev): shaping with its own OpenType font functions.
#include <hb.h>
#include <hb-ot.h>
