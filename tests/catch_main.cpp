// Catch2's main, alone in its file: it takes long to compile and never changes.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
