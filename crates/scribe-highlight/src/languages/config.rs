//! Configuration, build, data and markup languages: Nix, HCL, Protocol Buffers, GraphQL,
//! Dockerfile, Makefile, CSS, JSON, YAML, TOML, INI, HTML (and XML) and Markdown.

use super::*;

/// Nix: its comments, strings and words.
pub(crate) static NIX: Language = Language {
    name: "Nix",
    files: &["nix"],
    line_comments: HASH,
    block_comment: C_BLOCK,
    quotes: &[DOUBLE_LINES, Quote::new("''", "''").raw().across_lines()],
    vocabulary: Vocabulary {
        keywords: "assert else if import in inherit let or rec then with",
        constants: "false null true",
        ..Vocabulary::NONE
    },
    traits: Traits::DASHED_WORDS,
    ..BLANK
};

/// HCL: its comments, strings and words.
pub(crate) static HCL: Language = Language {
    name: "HCL",
    files: &["tf", "tfvars", "hcl"],
    fence_names: &["terraform"],
    line_comments: &["#", "//"],
    block_comment: C_BLOCK,
    quotes: &[DOUBLE],
    vocabulary: Vocabulary {
        keywords: "data dynamic else endfor endif for if in locals module output provider \
            resource terraform variable",
        constants: "false null true",
        types: "any bool list map number object set string",
        ..Vocabulary::NONE
    },
    traits: Traits::CALLS.and(Traits::KEYS_EQUALS),
    ..BLANK
};

/// Protocol Buffers: its comments, strings and words.
pub(crate) static PROTO: Language = Language {
    name: "Protocol Buffers",
    files: &["proto"],
    fence_names: &["protobuf"],
    line_comments: SLASHES,
    block_comment: C_BLOCK,
    quotes: &[DOUBLE, SINGLE],
    vocabulary: Vocabulary {
        keywords: "enum extend import map max message oneof option optional package public \
            repeated required reserved returns rpc service stream syntax to weak",
        constants: "false true",
        types: "bool bytes double fixed32 fixed64 float int32 int64 sfixed32 sfixed64 sint32 \
            sint64 string uint32 uint64",
        function_definers: "rpc",
        type_definers: "enum message service",
    },
    traits: Traits::CAPITALISED_TYPES,
    ..BLANK
};

/// GraphQL: its comments, strings and words.
pub(crate) static GRAPHQL: Language = Language {
    name: "GraphQL",
    files: &["graphql", "gql", "graphqls"],
    line_comments: HASH,
    quotes: &[TRIPLE_DOUBLE, DOUBLE],
    vocabulary: Vocabulary {
        keywords: "directive enum extend fragment implements input interface mutation on \
            query scalar schema subscription type union",
        constants: "false null true",
        types: "Boolean Float ID Int String",
        type_definers: "enum input interface scalar type union",
        ..Vocabulary::NONE
    },
    traits: Traits::CAPITALISED_TYPES.and(Traits::DOLLAR_VARIABLES),
    ..BLANK
};

/// Dockerfile: its comments, strings and words.
pub(crate) static DOCKERFILE: Language = Language {
    name: "Dockerfile",
    files: &["dockerfile", "Dockerfile", "Containerfile"],
    fence_names: &["docker"],
    line_comments: HASH,
    quotes: &[DOUBLE, SINGLE],
    vocabulary: Vocabulary {
        keywords: "add arg as cmd copy entrypoint env expose from healthcheck label \
            maintainer onbuild run shell stopsignal user volume workdir",
        ..Vocabulary::NONE
    },
    traits: Traits::DOLLAR_VARIABLES.and(Traits::CASELESS),
    ..BLANK
};

/// Makefile: its comments, strings and words.
pub(crate) static MAKEFILE: Language = Language {
    name: "Makefile",
    files: &["mk", "mak", "make", "Makefile", "makefile", "GNUmakefile"],
    fence_names: &["makefile"],
    line_comments: HASH,
    quotes: &[DOUBLE, SINGLE],
    vocabulary: Vocabulary {
        keywords: "define else endef endif export ifdef ifeq ifndef ifneq include override \
            unexport vpath",
        ..Vocabulary::NONE
    },
    traits: Traits::DOLLAR_VARIABLES.and(Traits::KEYS_COLON),
    ..BLANK
};

/// CSS: its comments, strings and words.
pub(crate) static CSS: Language = Language {
    name: "CSS",
    files: &["css", "scss", "sass", "less", "pcss", "postcss"],
    block_comment: C_BLOCK,
    quotes: &[DOUBLE, SINGLE],
    vocabulary: Vocabulary {
        constants: "auto inherit initial none unset",
        ..Vocabulary::NONE
    },
    traits: Traits::CALLS
        .and(Traits::AT_KEYWORDS)
        .and(Traits::KEYS_COLON)
        .and(Traits::DASHED_WORDS)
        .and(Traits::HASH_COLOURS)
        .and(Traits::DOLLAR_VARIABLES),
    ..BLANK
};

/// JSON: its comments, strings and words.
pub(crate) static JSON: Language = Language {
    name: "JSON",
    files: &[
        "json",
        "jsonc",
        "json5",
        "jsonl",
        "ndjson",
        "geojson",
        "webmanifest",
        "ipynb",
        ".babelrc",
        ".eslintrc",
        ".prettierrc",
        "composer.lock",
        "flake.lock",
    ],
    line_comments: SLASHES,
    block_comment: C_BLOCK,
    quotes: &[DOUBLE],
    vocabulary: Vocabulary {
        constants: "false null true",
        ..Vocabulary::NONE
    },
    traits: Traits::KEYS_COLON,
    ..BLANK
};

/// YAML: its comments, strings and words.
pub(crate) static YAML: Language = Language {
    name: "YAML",
    files: &["yaml", "yml", ".clang-format", "pnpm-lock.yaml"],
    line_comments: HASH,
    quotes: &[DOUBLE, Quote::new("'", "'").raw()],
    vocabulary: Vocabulary {
        constants: "false no null off on true yes ~",
        ..Vocabulary::NONE
    },
    traits: Traits::KEYS_COLON.and(Traits::CASELESS),
    ..BLANK
};

/// TOML: its comments, strings and words.
pub(crate) static TOML: Language = Language {
    name: "TOML",
    files: &["toml", "Cargo.lock", "Pipfile", "poetry.lock", "uv.lock"],
    line_comments: HASH,
    quotes: &[
        TRIPLE_DOUBLE,
        Quote::new("'''", "'''").raw().across_lines(),
        DOUBLE,
        Quote::new("'", "'").raw(),
    ],
    vocabulary: Vocabulary {
        constants: "false inf nan true",
        ..Vocabulary::NONE
    },
    traits: Traits::KEYS_EQUALS
        .and(Traits::SECTIONS)
        .and(Traits::DASHED_WORDS),
    ..BLANK
};

/// INI: its comments, strings and words.
pub(crate) static INI: Language = Language {
    name: "INI",
    files: &[
        "ini",
        "cfg",
        "conf",
        "properties",
        "env",
        ".env",
        ".editorconfig",
        ".gitconfig",
        ".npmrc",
        "desktop",
        "service",
    ],
    fence_names: &["dosini", "dotenv"],
    line_comments: &["#", ";"],
    quotes: &[DOUBLE],
    vocabulary: Vocabulary {
        constants: "false no off on true yes",
        ..Vocabulary::NONE
    },
    traits: Traits::KEYS_EQUALS
        .and(Traits::SECTIONS)
        .and(Traits::CASELESS)
        .and(Traits::DASHED_WORDS),
    ..BLANK
};

/// HTML: its comments, strings and words.
pub(crate) static HTML: Language = Language {
    name: "HTML",
    files: &[
        "html", "htm", "xhtml", "xml", "svg", "xsd", "xsl", "xslt", "plist", "vue", "svelte",
        "csproj", "fsproj", "vbproj", "props", "targets", "resx", "rss", "atom", "jsp", "erb",
        "hbs", "njk", "astro",
    ],
    fence_names: &["markup", "xaml"],
    block_comment: Some(("<!--", "-->")),
    quotes: &[
        Quote::new("\"", "\"").raw().across_lines(),
        Quote::new("'", "'").raw().across_lines(),
    ],
    vocabulary: Vocabulary::NONE,
    traits: Traits::MARKUP,
    ..BLANK
};

/// Markdown: its comments, strings and words.
pub(crate) static MARKDOWN: Language = Language {
    name: "Markdown",
    files: &["md", "markdown", "mdx", "mkd", "mdown"],
    vocabulary: Vocabulary::NONE,
    traits: Traits::HEADINGS,
    ..BLANK
};
