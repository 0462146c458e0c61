#include "workloads.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <sstream>
#include <sys/stat.h>

#include "hfcore/json.hpp"
#include "hfcore/workspace.hpp"

#ifndef HFCORE_BENCH_SHARED_DIR
#define HFCORE_BENCH_SHARED_DIR "../shared"
#endif

namespace hf::bench {

std::string shared_dir() {
    if (const char* env = std::getenv("HFCORE_SHARED_DIR"); env && *env) return env;
    return HFCORE_BENCH_SHARED_DIR;
}

bool file_exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

namespace {

Workload compile(const std::string& name, const Workspace& ws, const std::vector<JsonPatch>& patches,
                 const BackendPtr& backend) {
    ModelRequest req;
    req.patches = patches;
    ModelSpec spec = ws.model_spec(req);
    Workload w;
    w.name = name;
    w.model = std::make_unique<Model>(spec, backend);
    w.data = w.model->data_from_observations(ws.spec().observations, true, ws.source());
    w.spec = std::move(spec);
    return w;
}

}  // namespace

Workload load_workload(const std::string& name, const std::string& workspace_path,
                       const std::vector<std::string>& patch_paths, const BackendPtr& backend) {
    const Workspace ws = Workspace::load_file(workspace_path);
    std::vector<JsonPatch> patches;
    for (const auto& p : patch_paths) patches.push_back(JsonPatch::load_file(p));
    return compile(name, ws, patches, backend);
}

Workload load_workload_from_string(const std::string& name, const std::string& workspace_json,
                                   const BackendPtr& backend) {
    return compile(name, Workspace::load_string(workspace_json, name), {}, backend);
}

std::string synthetic_workspace(std::int64_t bins, std::int64_t nuisance, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    auto uniform = [&](double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); };
    constexpr int kBkg = 4;
    const double amp[kBkg] = {100.0, 60.0, 40.0, 20.0};
    const double slope[kBkg] = {1.0, 2.0, 0.5, 3.0};
    std::vector<std::vector<double>> bkg(kBkg, std::vector<double>(bins));
    std::vector<double> sig(bins);
    for (std::int64_t i = 0; i < bins; ++i) {
        const double x = (static_cast<double>(i) + 0.5) / static_cast<double>(bins);
        for (int s = 0; s < kBkg; ++s) bkg[s][i] = amp[s] * std::exp(-slope[s] * x);
        sig[i] = 20.0 * std::exp(-0.5 * std::pow((x - 0.5) / 0.1, 2)) + 0.5;
    }
    // Same budget rule as make_synthetic.py: per-bin modifiers only where they fit in the nuisance count.
    const bool stat = 2 * bins <= nuisance, shapesys = 4 * bins <= nuisance;
    const std::int64_t rest = nuisance - (stat ? bins : 0) - (shapesys ? bins : 0);
    const std::int64_t n_normsys = rest - rest / 2, n_histosys = rest / 2;

    std::vector<json::Array> mods(kBkg);
    for (std::int64_t j = 0; j < n_normsys; ++j) {
        json::Object d;
        d.set("hi", json::Value(1.0 + uniform(0.02, 0.15)));
        d.set("lo", json::Value(1.0 - uniform(0.02, 0.15)));
        json::Object m;
        m.set("name", json::Value("norm_" + std::to_string(j)));
        m.set("type", json::Value("normsys"));
        m.set("data", json::Value(std::move(d)));
        mods[j % kBkg].emplace_back(std::move(m));
    }
    for (std::int64_t j = 0; j < n_histosys; ++j) {
        const int s = static_cast<int>(j % kBkg);
        const double a = uniform(0.02, 0.1);
        json::Array hi, lo;
        for (std::int64_t i = 0; i < bins; ++i) {
            const double x = (static_cast<double>(i) + 0.5) / static_cast<double>(bins);
            hi.emplace_back(bkg[s][i] * (1.0 + a * (0.5 + (x - 0.5))));
            lo.emplace_back(bkg[s][i] * (1.0 - a * (0.5 - 0.8 * (x - 0.5))));
        }
        json::Object d;
        d.set("hi_data", json::Value(std::move(hi)));
        d.set("lo_data", json::Value(std::move(lo)));
        json::Object m;
        m.set("name", json::Value("shape_" + std::to_string(j)));
        m.set("type", json::Value("histosys"));
        m.set("data", json::Value(std::move(d)));
        mods[s].emplace_back(std::move(m));
    }
    for (int s = 0; s < kBkg; ++s) {
        if (stat) {
            json::Array v;
            for (std::int64_t i = 0; i < bins; ++i) v.emplace_back(0.05 * bkg[s][i]);
            json::Object m;
            m.set("name", json::Value("staterror_SR"));
            m.set("type", json::Value("staterror"));
            m.set("data", json::Value(std::move(v)));
            mods[s].emplace_back(std::move(m));
        }
        if (shapesys && s == 0) {
            json::Array v;
            for (std::int64_t i = 0; i < bins; ++i) v.emplace_back(0.1 * bkg[s][i]);
            json::Object m;
            m.set("name", json::Value("shapesys_bkg_0"));
            m.set("type", json::Value("shapesys"));
            m.set("data", json::Value(std::move(v)));
            mods[s].emplace_back(std::move(m));
        }
    }

    json::Array samples;
    {
        json::Object nf;
        nf.set("name", json::Value("mu"));
        nf.set("type", json::Value("normfactor"));
        nf.set("data", json::Value());
        json::Array m;
        m.emplace_back(std::move(nf));
        json::Array d(sig.begin(), sig.end());
        json::Object s;
        s.set("name", json::Value("signal"));
        s.set("data", json::Value(std::move(d)));
        s.set("modifiers", json::Value(std::move(m)));
        samples.emplace_back(std::move(s));
    }
    for (int s = 0; s < kBkg; ++s) {
        json::Array d(bkg[s].begin(), bkg[s].end());
        json::Object o;
        o.set("name", json::Value("bkg_" + std::to_string(s)));
        o.set("data", json::Value(std::move(d)));
        o.set("modifiers", json::Value(std::move(mods[s])));
        samples.emplace_back(std::move(o));
    }
    json::Array obs;
    for (std::int64_t i = 0; i < bins; ++i) {
        double lam = 0.3 * sig[i];
        for (int s = 0; s < kBkg; ++s) lam += bkg[s][i];
        obs.emplace_back(static_cast<double>(std::poisson_distribution<std::int64_t>(lam)(rng)));
    }
    json::Object channel;
    channel.set("name", json::Value("SR"));
    channel.set("samples", json::Value(std::move(samples)));
    json::Array channels;
    channels.emplace_back(std::move(channel));
    json::Object observation;
    observation.set("name", json::Value("SR"));
    observation.set("data", json::Value(std::move(obs)));
    json::Array observations;
    observations.emplace_back(std::move(observation));
    json::Object config;
    config.set("poi", json::Value("mu"));
    config.set("parameters", json::Value(json::Array{}));
    json::Object meas;
    meas.set("name", json::Value("meas"));
    meas.set("config", json::Value(std::move(config)));
    json::Array measurements;
    measurements.emplace_back(std::move(meas));
    json::Object ws;
    ws.set("channels", json::Value(std::move(channels)));
    ws.set("observations", json::Value(std::move(observations)));
    ws.set("measurements", json::Value(std::move(measurements)));
    ws.set("version", json::Value("1.0.0"));
    return json::dump(json::Value(std::move(ws)));
}

std::vector<double> parameter_points(const Model& model, std::int64_t k, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    const auto init = model.suggested_init();
    const auto bounds = model.suggested_bounds();
    const auto fixed = model.suggested_fixed();
    const std::size_t p = init.size();
    std::vector<double> out(static_cast<std::size_t>(k) * p);
    for (std::int64_t r = 0; r < k; ++r)
        for (std::size_t j = 0; j < p; ++j) {
            double v = init[j];
            if (!fixed[j]) {
                const double width = 0.1 * std::min(1.0, bounds[j].second - bounds[j].first);
                v += std::uniform_real_distribution<double>(-width, width)(rng);
                v = std::clamp(v, bounds[j].first, bounds[j].second);
            }
            out[static_cast<std::size_t>(r) * p + j] = v;
        }
    return out;
}

}  // namespace hf::bench
