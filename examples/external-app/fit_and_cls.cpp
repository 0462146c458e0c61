// A complete hfcore program: load a pyhf workspace, fit it, and compute CLs at mu = 1.
//
//   fit_and_cls WORKSPACE.json [BACKEND] [PRECISION]     (defaults: examples/workspaces/example.json cpu 64b)
#include <hfcore/loader.hpp>
#include <hfcore/errors.hpp>
#include <hfcore/infer.hpp>
#include <hfcore/model.hpp>
#include <hfcore/workspace.hpp>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
    const std::string path = argc > 1 ? argv[1] : "examples/workspaces/example.json";
    hf::LoadOptions load;
    load.precision = hf::parse_precision(argc > 3 ? argv[3] : "64b");
    try {
        // The workspace: schema and pyhf's rules checked; errors name the file and the JSON path.
        const hf::Workspace ws = hf::Workspace::load_file(path);
        // The model of the first measurement, with pyhf's default interpolation codes, on a backend plugin.
        hf::BackendPtr backend = hf::load_backend(argc > 2 ? argv[2] : "cpu", load);
        const hf::Model model(ws.model_spec(hf::ModelRequest{}), backend);
        const std::vector<double> data = model.data_from_observations(ws.spec().observations);

        // Maximum-likelihood fit with uncertainties.
        hf::infer::FitOptions fit_options;
        fit_options.uncertainties = true;
        const hf::infer::FitResult fit = hf::infer::fit(model, data, {}, fit_options);
        std::printf("backend: %s\n", backend->description().c_str());
        std::printf("fit: %s, twice_nll = %.6f\n", fit.converged ? "converged" : "NOT converged", fit.twice_nll);
        const auto names = model.par_names();
        for (std::size_t i = 0; i < names.size(); ++i)
            std::printf("  %-24s %10.5f +- %.5f\n", names[i].c_str(), fit.bestfit[i], fit.uncertainties[i]);

        // CLs at mu = 1 with the asymptotic calculator and q~ (pyhf's defaults), as `hfcore cls` computes it;
        // printed with every digit so that the two can be compared.
        const hf::infer::HypotestResult h = hf::infer::hypotest(1.0, model, data);
        std::printf("CLs_obs = %.17g\n", h.obs);
        std::printf("CLs_exp = [%.17g, %.17g, %.17g, %.17g, %.17g]\n", h.exp[0], h.exp[1], h.exp[2], h.exp[3],
                    h.exp[4]);

        // Observed and expected upper limits on mu at 95% CL.
        const hf::infer::UpperLimitResult ul = hf::infer::upper_limit(model, data);
        std::printf("upper limit: obs %.4f, exp median %.4f\n", ul.obs, ul.exp[2]);
        return fit.converged ? 0 : 1;
    } catch (const hf::Error& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 2;
    }
}
