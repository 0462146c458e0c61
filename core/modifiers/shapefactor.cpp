// shapefactor: a free factor per bin of a sample (pyhf's shapefactor), one unconstrained parameter per bin,
// init 1, bounds [0, 10]. Samples sharing one must have the same number of bins.
#include <map>
#include <utility>

#include "modifiers/modifier.hpp"
#include "modifiers/registry.hpp"
#include "workspace/schema_check.hpp"

namespace hf::detail {

namespace {

class SameBinsEverywhere final : public UseCheck {
public:
    explicit SameBinsEverywhere(const Fail& fail) : fail_(fail) {}
    void use(const ModifierSpec& m, const SampleSpec& s, const ChannelSpec&) override {
        auto [it, fresh] = first_.try_emplace(m.name, s.data.size(), &m);
        const auto& [n, first] = it->second;
        if (!fresh && n != s.data.size())
            fail_(m.json_path, "shapefactor '" + m.name + "' covers " + n_items(s.data.size(), "bin") + " here but " +
                                   n_items(n, "bin") + " at " + first->json_path + " (pyhf: InvalidNameReuse)");
    }

private:
    const Fail& fail_;
    std::map<std::string, std::pair<std::size_t, const ModifierSpec*>> first_;
};

class Shapefactor final : public ModifierKind {
public:
    ModifierType type() const override { return ModifierType::shapefactor; }
    const char* name() const override { return "shapefactor"; }

    void check_json_data(const SchemaCheck& check, const json::Value& data, const std::string& path) const override {
        check.null(data, path);
    }

    std::unique_ptr<UseCheck> use_check(const Fail& fail) const override {
        return std::make_unique<SameBinsEverywhere>(fail);
    }
    std::size_t components(const ModifierSpec&, const SampleSpec& s, const std::vector<ChannelSpec>&) const override {
        return s.data.size();
    }
    bool per_bin() const override { return true; }

    Constraint constraint() const override { return Constraint::none; }
    ConfigAttrs configurable() const override { return {}; }
    void collect(const ModifierSpec& m, const SampleSpec& s, std::int64_t, ParamCollector& c) const override {
        c.add(type(), m.name, free_requirement(*this, m, static_cast<std::int64_t>(s.data.size())));
    }

    void lower(const ModifierSpec&, const Element& e, PackedBuilder& out) const override {
        out.add_factor(e.parameter.offset + static_cast<std::int64_t>(e.bin), kFactorLinear);
    }
};

}  // namespace

const ModifierKind& shapefactor_kind() {
    static const Shapefactor kind;
    return kind;
}

}  // namespace hf::detail
