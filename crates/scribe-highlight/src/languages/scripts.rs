//! Scripting and functional languages, most with `#` or `--` comments: Python, Ruby, Lua,
//! Perl, R, Shell, PowerShell, SQL, Haskell and Elixir.

use super::*;

/// Python: its comments, strings and words.
pub(crate) static PYTHON: Language = Language {
    name: "Python",
    files: &["py", "pyi", "pyw", "pyx", "SConstruct", "SConscript"],
    fence_names: &["python", "python3", "py3"],
    line_comments: HASH,
    quotes: &[TRIPLE_DOUBLE, TRIPLE_SINGLE, DOUBLE, SINGLE],
    string_prefixes: "rbfuRBFU",
    vocabulary: Vocabulary {
        keywords: "and as assert async await break case class continue def del elif else \
            except finally for from global if import in is lambda match nonlocal not or pass \
            print raise return try while with yield",
        constants: "Ellipsis False None NotImplemented True cls self",
        types: "Exception bool bytes dict float int list object set str tuple type",
        function_definers: "def",
        type_definers: "class",
    },
    traits: C_LIKE.and(Traits::AT_ANNOTATIONS),
    ..BLANK
};

/// Ruby: its comments, strings and words.
pub(crate) static RUBY: Language = Language {
    name: "Ruby",
    files: &[
        "rb",
        "rake",
        "gemspec",
        "ru",
        "Gemfile",
        "Rakefile",
        "Podfile",
        "Vagrantfile",
    ],
    fence_names: &["ruby", "jruby"],
    line_comments: HASH,
    quotes: &[DOUBLE_LINES, SINGLE, BACKTICK_LINES],
    vocabulary: Vocabulary {
        keywords: "alias and attr_accessor attr_reader attr_writer begin break case class def \
            defined? do else elsif end ensure for if in lambda module next not or private \
            proc protected public puts raise redo require require_relative rescue retry \
            return self super then undef unless until when while yield",
        constants: "false nil true",
        function_definers: "def",
        type_definers: "class module",
        ..Vocabulary::NONE
    },
    traits: C_LIKE,
    ..BLANK
};

/// Lua: its comments, strings and words.
pub(crate) static LUA: Language = Language {
    name: "Lua",
    files: &["lua"],
    line_comments: &["--"],
    block_comment: Some(("--[[", "]]")),
    quotes: &[DOUBLE, SINGLE, Quote::new("[[", "]]").raw().across_lines()],
    vocabulary: Vocabulary {
        keywords: "and break do else elseif end for function goto if in local not or repeat \
            require return then until while",
        constants: "false nil true",
        function_definers: "function",
        ..Vocabulary::NONE
    },
    traits: Traits::CALLS,
    ..BLANK
};

/// Perl: its comments, strings and words.
pub(crate) static PERL: Language = Language {
    name: "Perl",
    files: &["pl", "pm", "t", "pod"],
    fence_names: &["perl"],
    line_comments: HASH,
    quotes: &[DOUBLE_LINES, SINGLE],
    vocabulary: Vocabulary {
        keywords: "and bless cmp defined die do else elsif eq eval for foreach ge gt if last \
            le local lt my ne next no not or our package print redo require return say sub \
            undef unless until use while",
        function_definers: "sub",
        type_definers: "package",
        ..Vocabulary::NONE
    },
    traits: Traits::CALLS.and(Traits::DOLLAR_VARIABLES),
    ..BLANK
};

/// R: its comments, strings and words.
pub(crate) static R: Language = Language {
    name: "R",
    files: &["r", "rmd"],
    line_comments: HASH,
    quotes: &[DOUBLE_LINES, SINGLE],
    vocabulary: Vocabulary {
        keywords: "break else for function if in library next repeat require return while",
        constants: "F FALSE Inf NA NA_character_ NA_integer_ NA_real_ NULL NaN T TRUE",
        ..Vocabulary::NONE
    },
    traits: Traits::CALLS,
    ..BLANK
};

/// Shell: its comments, strings and words.
pub(crate) static SHELL: Language = Language {
    name: "Shell",
    files: &[
        "sh",
        "bash",
        "zsh",
        "ksh",
        "fish",
        "bashrc",
        "zshrc",
        "profile",
        ".bashrc",
        ".bash_profile",
        ".zshrc",
        ".profile",
        ".envrc",
        "PKGBUILD",
    ],
    fence_names: &[
        "shell",
        "console",
        "shellsession",
        "terminal",
        "shell-session",
    ],
    line_comments: HASH,
    quotes: &[DOUBLE_LINES, SINGLE_RAW_LINES, BACKTICK_LINES],
    vocabulary: Vocabulary {
        keywords: "alias break case cd continue coproc declare do done echo elif else esac \
            eval exec exit export fi for function if in local printf read readonly return \
            select set shift source test then time trap typeset unset until while",
        constants: "false true",
        function_definers: "function",
        ..Vocabulary::NONE
    },
    traits: Traits::DOLLAR_VARIABLES,
    ..BLANK
};

/// PowerShell: its comments, strings and words.
pub(crate) static POWERSHELL: Language = Language {
    name: "PowerShell",
    files: &["ps1", "psm1", "psd1"],
    fence_names: &["powershell", "pwsh", "posh"],
    line_comments: HASH,
    block_comment: Some(("<#", "#>")),
    quotes: &[DOUBLE_LINES, SINGLE_RAW_LINES],
    vocabulary: Vocabulary {
        keywords: "begin break catch class continue data default do dynamicparam else elseif \
            end enum exit filter finally for foreach from function if in param process \
            return switch throw trap try until using var while workflow",
        constants: "$false $null $true",
        function_definers: "filter function",
        type_definers: "class enum",
        ..Vocabulary::NONE
    },
    traits: Traits::DOLLAR_VARIABLES
        .and(Traits::CASELESS)
        .and(Traits::DASHED_WORDS),
    ..BLANK
};

/// SQL: its comments, strings and words.
pub(crate) static SQL: Language = Language {
    name: "SQL",
    files: &["sql", "ddl", "dml", "psql"],
    fence_names: &["postgresql", "postgres", "mysql", "sqlite", "plsql"],
    line_comments: &["--"],
    block_comment: C_BLOCK,
    quotes: &[Quote::new("'", "'").raw().across_lines(), DOUBLE],
    vocabulary: Vocabulary {
        keywords: "add all alter and any as asc begin between by cascade case check column \
            commit constraint create cross database default delete desc distinct drop else \
            end exists foreign from full grant group having if in index inner insert into is \
            join key left like limit not null offset on or order outer over partition \
            primary recursive references replace returning right rollback select set table \
            then to transaction truncate union unique update using values view when where \
            window with",
        constants: "false true",
        types: "bigint blob boolean char date decimal double float int integer interval json \
            jsonb numeric real serial smallint text time timestamp tinyint uuid varchar",
        ..Vocabulary::NONE
    },
    traits: Traits::CALLS.and(Traits::CASELESS),
    ..BLANK
};

/// Haskell: its comments, strings and words.
pub(crate) static HASKELL: Language = Language {
    name: "Haskell",
    files: &["hs", "lhs"],
    fence_names: &["haskell"],
    line_comments: &["--"],
    block_comment: Some(("{-", "-}")),
    quotes: &[DOUBLE],
    vocabulary: Vocabulary {
        keywords: "as case class data default deriving do else forall foreign hiding if \
            import in infix infixl infixr instance let module newtype of qualified then type \
            where",
        constants: "False Just Left Nothing Right True",
        type_definers: "class data instance newtype type",
        ..Vocabulary::NONE
    },
    traits: Traits::CAPITALISED_TYPES.and(Traits::NESTED_COMMENTS),
    ..BLANK
};

/// Elixir: its comments, strings and words.
pub(crate) static ELIXIR: Language = Language {
    name: "Elixir",
    files: &["ex", "exs"],
    fence_names: &["elixir"],
    line_comments: HASH,
    quotes: &[TRIPLE_DOUBLE, DOUBLE_LINES, SINGLE],
    vocabulary: Vocabulary {
        keywords: "after alias and case catch cond def defimpl defmacro defmacrop defmodule \
            defp defprotocol defstruct do else end fn for if import in not or quote raise \
            receive require rescue try unless unquote use when with",
        constants: "false nil true",
        function_definers: "def defmacro defmacrop defp",
        type_definers: "defimpl defmodule defprotocol",
        ..Vocabulary::NONE
    },
    traits: C_LIKE.and(Traits::AT_ANNOTATIONS),
    ..BLANK
};
