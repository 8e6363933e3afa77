// Stands in for the tiling header CANN generates at build time (see ../asc_bisheng_builtins.h).
#pragma once
