// Fixture provenance: every reference file made by a script of tests/reference records the sha256 of the inputs
// it was made from; a test that uses the file first checks those inputs are still the same bytes, so a changed
// workspace cannot keep passing against numbers made from its old version.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <string>

#include "hfcore/json.hpp"
#include "hfcore/workspace.hpp"
#include "test_support.hpp"

namespace hf::test {

// sha256 (hex) of a file's bytes, computed once per path and process.
inline std::string file_sha256(const std::filesystem::path& path) {
    static std::mutex m;
    static std::map<std::string, std::string> cache;
    std::lock_guard<std::mutex> lock(m);
    auto it = cache.find(path.string());
    if (it != cache.end()) return it->second;
    if (!std::filesystem::exists(path)) return cache[path.string()] = "(missing: " + path.string() + ")";
    return cache[path.string()] = hash_hex("sha256", read_text(path));
}

// Each {relative path: sha256} of `hashes` (relative to `root`) must match the file there now.
inline ::testing::AssertionResult inputs_unchanged(const json::Value& hashes, const std::filesystem::path& root) {
    int n = 0;
    for (const auto& [rel, sha] : hashes.as_object()) {
        const std::string now = file_sha256(root / rel);
        if (now != sha.as_string())
            return ::testing::AssertionFailure() << rel << " (under " << root.string() << ") has sha256 " << now
                                                 << " but the reference was made from " << sha.as_string()
                                                 << ": regenerate the reference (tests/reference/README.md)";
        ++n;
    }
    if (n == 0) return ::testing::AssertionFailure() << "the reference records no input hashes";
    return ::testing::AssertionSuccess();
}

// A provenance block written by tests/reference/provenance.py: shared_sha256 and repo_sha256.
inline ::testing::AssertionResult provenance_inputs_unchanged(const json::Value& provenance) {
    ::testing::AssertionResult ok = ::testing::AssertionSuccess();
    bool any = false;
    if (const auto* s = provenance.find("shared_sha256"); s && !s->as_object().empty()) {
        any = true;
        ok = inputs_unchanged(*s, shared_dir());
        if (!ok) return ok;
    }
    if (const auto* r = provenance.find("repo_sha256"); r && !r->as_object().empty()) {
        any = true;
        ok = inputs_unchanged(*r, source_dir());
    }
    if (!any) return ::testing::AssertionFailure() << "the reference records no input hashes";
    return ok;
}

}  // namespace hf::test
