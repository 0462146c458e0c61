// Inference on every other backend that loads here (opencl, cuda): the same toys from the same seed as cpu,
// the same asymptotic CLs, the same toy-based CLs. Skipped where no such backend is usable.
#include <cmath>

#include "hfcore/backend.hpp"
#include "infer_support.hpp"

namespace hf::test {
namespace {

std::vector<BackendPtr> other_backends(const std::string& precision) {
    std::vector<BackendPtr> out;
    LoadOptions lo;
    lo.precision = hf::parse_precision(precision);
    for (const char* name : {"opencl", "cuda"}) {
        try {
            out.push_back(load_backend(name, lo));
        } catch (const Error&) {
            // not built or no device here
        }
    }
    return out;
}

std::unique_ptr<Model> model_on(const Case& c, const BackendPtr& backend) {
    ModelRequest req;
    const auto& codes = c.expected["model_settings"]["effective_interpcodes"];
    req.settings.normsys_interpcode = hf::parse_interpcode(codes["normsys"]["interpcode"].as_string());
    req.settings.histosys_interpcode = hf::parse_interpcode(codes["histosys"]["interpcode"].as_string());
    return std::make_unique<Model>(c.ws->model_spec(req), backend);
}

TEST(Backends, SameToysSameClsAsCpu) {
    HF_REQUIRE_SHARED();
    auto others = other_backends("64b");
    if (others.empty()) GTEST_SKIP() << "skipped: no opencl or cuda backend usable here";
    for (const char* name : {"1bin_lumi", "2bin_2channel"}) {
        Case c = load_case(name);
        const auto pars = c.model->suggested_init();
        Tensor t = infer::sample_toys(*c.model, pars, 5, 200, 99, 1);
        auto cpu_toys = t.backend().to_host_double(t);
        infer::HypotestOptions o = case_options(c);
        auto cpu_asym = infer::hypotest(c.mu_test(), *c.model, c.data, o);
        o.calctype = infer::CalcType::toybased;
        o.ntoys = 200;
        o.seed = 5;
        auto cpu_toy = infer::hypotest(c.mu_test(), *c.model, c.data, o);
        for (const auto& b : others) {
            auto m = model_on(c, b);
            Tensor u = infer::sample_toys(*m, pars, 5, 200, 99, 1);
            auto toys = b->to_host_double(u);
            ASSERT_EQ(toys.size(), cpu_toys.size());
            for (std::size_t i = 0; i < toys.size(); ++i)
                ASSERT_NEAR(toys[i], cpu_toys[i], 1e-9 * std::max(1.0, std::abs(cpu_toys[i])))
                    << b->description() << " " << name << " toy value " << i;
            infer::HypotestOptions oa = case_options(c);
            auto asym = infer::hypotest(c.mu_test(), *m, c.data, oa);
            EXPECT_LE(rel(asym.obs, cpu_asym.obs), 1e-7) << b->description() << " " << name;
            auto toy = infer::hypotest(c.mu_test(), *m, c.data, o);
            // (CLb = 0 gives NaN, as in pyhf: then both must be NaN.)
            auto same = [](double a, double x) { return (std::isnan(a) && std::isnan(x)) || std::abs(a - x) <= 1e-12; };
            EXPECT_TRUE(same(toy.obs, cpu_toy.obs)) << b->description() << " " << name << ": " << toy.obs << " vs " << cpu_toy.obs;
            for (int i = 0; i < 5; ++i)
                EXPECT_TRUE(same(toy.exp[i], cpu_toy.exp[i])) << b->description() << " " << name << " exp[" << i << "]";
            EXPECT_EQ(toy.b_teststats.size(), cpu_toy.b_teststats.size());
        }
    }
}

}  // namespace
}  // namespace hf::test
