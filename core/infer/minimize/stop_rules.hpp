// When a lane of the lockstep engine (lockstep_lbfgs.hpp, LaneStopRule) ends:
//   - ProjectedGradientStop, the toys': the largest projected-gradient component below a tolerance in scaled
//     units, or back at a minimum the problem already has (KnownMinimum);
//   - EdmStop, the held fits': the quasi-Newton estimate of the remaining NLL decrease below a tolerance.
#pragma once

#include <cstddef>
#include <vector>

#include "infer/minimize/lockstep_lbfgs.hpp"
#include "infer/minimize/preconditioners.hpp"

namespace hf::infer::detail {

struct Problem;

class ProjectedGradientStop : public LaneStopRule {
public:
    // gtol: in scaled units (curvatures of order one), so the NLL is within ~gtol^2 of the minimum. known: per
    // lane (may be null); multimodal: the free indices of the multimodal parameters; basin_multimodal (a basin
    // search's, or null): a descent ends as soon as it is back in its known minimum's basin (basin_search.hpp).
    ProjectedGradientStop(const Problem& p, double gtol, std::vector<KnownMinimum>* known,
                          const std::vector<std::size_t>& multimodal,
                          const std::vector<std::size_t>* basin_multimodal);
    LaneStatus before_direction(int k, Lane& lane, const std::vector<double>& pg) override;
    LaneStatus after_direction(int k, Lane& lane, Preconditioner& m) override;
    LaneStatus after_step(int k, Lane& lane, double df, bool armijo) override;
    LaneStatus when_stuck(int k, Lane& lane, Stuck why) override;

private:
    LaneStatus judged(const Lane& lane);
    const Problem& p_;
    double gtol_;
    std::vector<KnownMinimum>* known_;
    const std::vector<std::size_t>& multimodal_;
    const std::vector<std::size_t>* basin_multimodal_;
    std::vector<double> pg_;
};

class EdmStop : public LaneStopRule {
public:
    explicit EdmStop(double tol) : tol_(tol) {}
    LaneStatus before_direction(int, Lane&, const std::vector<double>&) override { return LaneStatus::running; }
    LaneStatus after_direction(int k, Lane& lane, Preconditioner& m) override;
    LaneStatus after_step(int k, Lane& lane, double df, bool armijo) override;
    LaneStatus when_stuck(int k, Lane& lane, Stuck why) override;

private:
    double tol_;
    std::vector<double> pg_, mg_;
};

}  // namespace hf::infer::detail
