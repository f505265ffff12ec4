#pragma once
// The fuzz targets' precompiled header (clang, the fuzz flags): the standard library and nlohmann/json that most of
// the 27 core sources compiled for the fuzzers include. Built with -fpch-instantiate-templates, so json's templates
// are instantiated once here instead of in each of the 14 units that parse JSON.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>
