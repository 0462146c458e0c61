#include "cl_programs.hpp"

#include <cctype>
#include <cstring>
#include <vector>

#include "hfcore/errors.hpp"
#include "opencl_embedded_sources.hpp"

namespace hf::ocl {

namespace {

const char* source_text(const char* name) {
    for (const auto& s : embedded::kSources)
        if (std::strcmp(s.name, name) == 0) return s.text;
    throw PluginError(std::string("opencl: embedded kernel source ") + name + " is missing (build error)");
}

std::string def(const char* name, long value) { return std::string("#define ") + name + " " + std::to_string(value) + "\n"; }

// Op codes come from the host enums, so kernels and host cannot disagree.
std::string op_codes() {
    std::string s;
    s += def("HF_U_NEG", static_cast<long>(UnaryOp::neg));
    s += def("HF_U_ABS", static_cast<long>(UnaryOp::abs));
    s += def("HF_U_EXP", static_cast<long>(UnaryOp::exp));
    s += def("HF_U_LOG", static_cast<long>(UnaryOp::log));
    s += def("HF_U_SQRT", static_cast<long>(UnaryOp::sqrt));
    s += def("HF_U_SQUARE", static_cast<long>(UnaryOp::square));
    s += def("HF_U_SIGN", static_cast<long>(UnaryOp::sign));
    s += def("HF_U_FLOOR", static_cast<long>(UnaryOp::floor));
    s += def("HF_U_LGAMMA", static_cast<long>(UnaryOp::lgamma));
    s += def("HF_U_ERF", static_cast<long>(UnaryOp::erf));
    s += def("HF_U_ERFINV", static_cast<long>(UnaryOp::erfinv));
    s += def("HF_U_NORMAL_CDF", static_cast<long>(UnaryOp::normal_cdf));
    s += def("HF_U_NORMAL_PPF", static_cast<long>(UnaryOp::normal_ppf));
    s += def("HF_U_LOGICAL_NOT", static_cast<long>(UnaryOp::logical_not));
    s += def("HF_B_ADD", static_cast<long>(BinaryOp::add));
    s += def("HF_B_SUB", static_cast<long>(BinaryOp::sub));
    s += def("HF_B_MUL", static_cast<long>(BinaryOp::mul));
    s += def("HF_B_DIV", static_cast<long>(BinaryOp::div));
    s += def("HF_B_POW", static_cast<long>(BinaryOp::pow));
    s += def("HF_B_MIN", static_cast<long>(BinaryOp::minimum));
    s += def("HF_B_MAX", static_cast<long>(BinaryOp::maximum));
    s += def("HF_B_XLOGY", static_cast<long>(BinaryOp::xlogy));
    s += def("HF_B_LT", static_cast<long>(BinaryOp::lt));
    s += def("HF_B_LE", static_cast<long>(BinaryOp::le));
    s += def("HF_B_GT", static_cast<long>(BinaryOp::gt));
    s += def("HF_B_GE", static_cast<long>(BinaryOp::ge));
    s += def("HF_B_EQ", static_cast<long>(BinaryOp::eq));
    s += def("HF_B_NE", static_cast<long>(BinaryOp::ne));
    s += def("HF_B_AND", static_cast<long>(BinaryOp::logical_and));
    s += def("HF_B_OR", static_cast<long>(BinaryOp::logical_or));
    s += def("HF_R_SUM", static_cast<long>(ReduceOp::sum));
    s += def("HF_R_PROD", static_cast<long>(ReduceOp::prod));
    s += def("HF_R_MAX", static_cast<long>(ReduceOp::max));
    s += def("HF_R_MIN", static_cast<long>(ReduceOp::min));
    return s;
}

struct DTypeText {
    const char* type;
    const char* sfx;
    const char* kind;     // HF_T_FLOAT, HF_T_INT or HF_T_BOOL
    const char* lowest;   // integer extremes for max/min reductions
    const char* highest;
    const char* ops;      // elementwise template
};

DTypeText dtype_text(ProgramId id) {
    switch (id) {
        case ProgramId::f32: return {"float", "f32", "HF_T_FLOAT", "0", "0", "float_template.cl"};
        case ProgramId::f64: return {"double", "f64", "HF_T_FLOAT", "0", "0", "float_template.cl"};
        case ProgramId::i32: return {"int", "i32", "HF_T_INT", "INT_MIN", "INT_MAX", "int_template.cl"};
        case ProgramId::i64: return {"long", "i64", "HF_T_INT", "LONG_MIN", "LONG_MAX", "int_template.cl"};
        default: return {"uchar", "b8", "HF_T_BOOL", "0", "1", "bool_template.cl"};
    }
}

std::string dtype_program(ProgramId id) {
    const DTypeText t = dtype_text(id);
    std::string s;
    s += std::string("#define T ") + t.type + "\n#define SFX " + t.sfx + "\n#define " + t.kind + "\n";
    s += std::string("#define HF_T_LOWEST ") + t.lowest + "\n#define HF_T_HIGHEST " + t.highest + "\n";
    s += source_text("dtype_template.cl");
    if (std::strcmp(t.kind, "HF_T_FLOAT") == 0) {
        // The normal quantile and erfinv shared with the cpu and cuda plugins, in the working type of the
        // special functions (double whenever the device has it, as float_template.cl's W).
        s += "#ifdef HF_HAVE_FP64\n#define hf_nq_real double\n#else\n#define hf_nq_real float\n#endif\n"
             "#define HF_NQ_FN static inline\n";
        s += source_text("hf_normal_quantile.h");
    }
    s += source_text(t.ops);
    return s;
}

std::string cast_program(bool fp64) {
    std::vector<DType> types = {DType::f32, DType::i32, DType::i64, DType::boolean};
    if (fp64) types.insert(types.begin() + 1, DType::f64);
    std::string s;
    for (DType from : types) {
        for (DType to : types) {
            if (from == to) continue;
            s += std::string("#define TS ") + cl_type_name(from) + "\n#define SS " + dtype_suffix(from) + "\n";
            s += std::string("#define TD ") + cl_type_name(to) + "\n#define SD " + dtype_suffix(to) + "\n";
            if (to == DType::boolean) s += "#define HF_TO_BOOL\n";
            s += source_text("cast_template.cl");
            s += "\n#undef TS\n#undef SS\n#undef TD\n#undef SD\n#undef HF_TO_BOOL\n";
        }
    }
    return s;
}

std::string copy_program() {
    std::string s;
    const char* types[3][2] = {{"uchar", "1"}, {"uint", "4"}, {"ulong", "8"}};
    for (auto& t : types) {
        s += std::string("#define U ") + t[0] + "\n#define SFX " + t[1] + "\n";
        s += source_text("copy_template.cl");
        s += "\n#undef U\n#undef SFX\n";
    }
    s += source_text("copy_common.cl");
    return s;
}

// Names of the functions a shared header defines ("HF_FN <type> hf_name("). A scan by hand rather than
// std::regex: libstdc++'s regex compiler sets off -Wmaybe-uninitialized in sanitizer builds.
std::vector<std::string> shared_functions(const std::string& text) {
    const auto ident_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    const auto skip_space = [&](std::size_t i) {
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
        return i;
    };
    const auto skip_ident = [&](std::size_t i) {
        while (i < text.size() && ident_char(text[i])) ++i;
        return i;
    };
    std::vector<std::string> names;
    for (std::size_t at = text.find("HF_FN"); at != std::string::npos; at = text.find("HF_FN", at + 1)) {
        if (at > 0 && ident_char(text[at - 1])) continue;
        std::size_t i = at + 5;
        const std::size_t type = skip_space(i);
        if (type == i || type >= text.size() || std::isdigit(static_cast<unsigned char>(text[type]))) continue;
        const std::size_t type_end = skip_ident(type);
        if (type_end == type) continue;
        const std::size_t name = skip_space(type_end);
        if (name == type_end || text.compare(name, 3, "hf_") != 0) continue;
        const std::size_t name_end = skip_ident(name);
        const std::size_t paren = skip_space(name_end);
        if (paren < text.size() && text[paren] == '(') names.push_back(text.substr(name, name_end - name));
    }
    return names;
}

// hf_likelihood_math.h as hfw_* over hf_wide: a second copy of the text over double with every function renamed
// (32b on a device with fp64), or aliases of the hf_* functions when hf_wide is hf_real.
std::string wide_math(bool second_copy) {
    const std::string text = source_text("hf_likelihood_math.h");
    const auto names = shared_functions(text);
    std::string s;
    if (!second_copy) {
        s += "#define hf_wide hf_real\n";
        for (const auto& n : names) s += "#define hfw_" + n.substr(3) + " " + n + "\n";
        return s;
    }
    s += "#define hf_wide double\n#undef hf_real\n#define hf_real double\n";
    for (const auto& n : names) s += "#define " + n + " hfw_" + n.substr(3) + "\n";
    s += text;
    for (const auto& n : names) s += "\n#undef " + n;
    s += "\n#undef hf_real\n#define hf_real float\n";
    return s;
}

std::string real_program(ProgramId id, bool fp64) {
    std::string s;
    s += std::string("#define hf_real ") + (id == ProgramId::real64 ? "double" : "float") + "\n";
    s += "#define HF_FN static inline\n#define HF_GLOBAL __global\n#define hf_u32 uint\n#define hf_u64 ulong\n";
    s += source_text("philox.h");
    s += source_text("hf_likelihood_math.h");
    s += wide_math(id == ProgramId::real32 && fp64);
    s += source_text("fused_layout.h");
    s += source_text("random.cl");
    s += source_text("likelihood.cl");
    s += source_text("input_grad.cl");
    return s;
}

}  // namespace

const char* cl_type_name(DType t) {
    switch (t) {
        case DType::f32: return "float";
        case DType::f64: return "double";
        case DType::i32: return "int";
        case DType::i64: return "long";
        case DType::boolean: return "uchar";
    }
    return "?";
}

const char* dtype_suffix(DType t) {
    switch (t) {
        case DType::f32: return "f32";
        case DType::f64: return "f64";
        case DType::i32: return "i32";
        case DType::i64: return "i64";
        case DType::boolean: return "b8";
    }
    return "?";
}

std::string program_source(ProgramId id, bool fp64) {
    std::string s = "/* hfcore OpenCL program: " + std::string(program_name(id)) + " */\n";
    s += op_codes();
    s += source_text("common.cl");
    switch (id) {
        case ProgramId::f32:
        case ProgramId::f64:
        case ProgramId::i32:
        case ProgramId::i64:
        case ProgramId::b8: s += dtype_program(id); break;
        case ProgramId::cast: s += cast_program(fp64); break;
        case ProgramId::copy: s += copy_program(); break;
        case ProgramId::real32:
        case ProgramId::real64: s += real_program(id, fp64); break;
        case ProgramId::count: break;
    }
    return s;
}

}  // namespace hf::ocl
