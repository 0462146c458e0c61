/* Layout of the tables the OpenCL fused likelihood uploads once per model: every integer table lives in one
 * int buffer and every real table in one real buffer; a small int "meta" buffer holds where each starts and
 * the model's sizes. Shared text of the host (likelihood.cpp) and the kernels (likelihood.cl). */
enum HfIntTable {
    HF_I_BIN_OFF,      /* [N+1] CSR: elements of each main bin */
    HF_I_BIN_ELEMS,    /* [E]   element ids, grouped by bin */
    HF_I_ELEM_BIN,     /* [E] */
    HF_I_FAC_OFF,      /* [E+1] */
    HF_I_DEL_OFF,      /* [E+1] */
    HF_I_FAC_PAR,      /* [F] */
    HF_I_FAC_KIND,     /* [F] */
    HF_I_FAC_ELEM,     /* [F] element of each factor */
    HF_I_DEL_PAR,      /* [D] */
    HF_I_DEL_KIND,     /* [D] */
    HF_I_DEL_ELEM,     /* [D] */
    HF_I_GAUSS_PAR,    /* [G] */
    HF_I_GAUSS_AUX,    /* [G] */
    HF_I_POIS_PAR,     /* [Q] */
    HF_I_POIS_AUX,     /* [Q] */
    HF_I_PAR_FAC_OFF,  /* [P+1] CSR: factors that read each parameter */
    HF_I_PAR_FAC,      /* [F] */
    HF_I_PAR_DEL_OFF,  /* [P+1] */
    HF_I_PAR_DEL,      /* [D] */
    HF_I_PAR_GAUSS_OFF,/* [P+1] */
    HF_I_PAR_GAUSS,    /* [G] */
    HF_I_PAR_POIS_OFF, /* [P+1] */
    HF_I_PAR_POIS,     /* [Q] */
    HF_I_AUX_PAR,      /* [A] parameter whose expectation each aux datum has, -1 for none */
    HF_I_COUNT
};

enum HfRealTable {
    HF_R_NOMINAL,   /* [E] */
    HF_R_FAC_LO,    /* [F] */
    HF_R_FAC_HI,    /* [F] */
    HF_R_FAC_COEF,  /* [6F] */
    HF_R_DEL_LO,    /* [D] */
    HF_R_DEL_NOM,   /* [D] */
    HF_R_DEL_HI,    /* [D] */
    HF_R_GAUSS_SIGMA, /* [G] */
    HF_R_POIS_TAU,  /* [Q] */
    HF_R_AUX_SCALE, /* [A] 1 for Gaussian constraints, tau for Poisson ones */
    HF_R_COUNT
};

/* meta: [HF_I_COUNT int offsets][HF_R_COUNT real offsets][sizes] */
enum HfMeta {
    HF_META_INT = 0,
    HF_META_REAL = (int)HF_I_COUNT,
    HF_META_N = (int)HF_I_COUNT + (int)HF_R_COUNT,
    HF_META_E,
    HF_META_P,
    HF_META_A,
    HF_META_G,
    HF_META_Q,
    HF_META_COUNT
};
