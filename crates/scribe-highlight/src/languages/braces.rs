//! Languages of the C family's braces and `//` comments: Rust, JavaScript, TypeScript, Go,
//! C, C++, Objective-C, C#, Java, Kotlin, Scala, Swift, Dart, PHP and Zig.

use super::*;

/// Rust: its comments, strings and words.
pub(crate) static RUST: Language = Language {
    name: "Rust",
    files: &["rs"],
    fence_names: &["rust"],
    line_comments: SLASHES,
    block_comment: C_BLOCK,
    quotes: &[
        DOUBLE_LINES,
        Quote::new("##\"", "\"##").raw().across_lines(),
        Quote::new("#\"", "\"#").raw().across_lines(),
    ],
    string_prefixes: "rbc",
    vocabulary: Vocabulary {
        keywords: "Self as async await break const continue crate dyn else enum extern fn for \
            if impl in let loop macro_rules match mod move mut pub ref return self static \
            struct super trait type union unsafe use where while yield",
        constants: "Err None Ok Some false true",
        types: "Box Option Result String Vec bool char f32 f64 i128 i16 i32 i64 i8 isize str \
            u128 u16 u32 u64 u8 usize",
        function_definers: "fn",
        type_definers: "enum impl struct trait type union",
    },
    traits: C_LIKE
        .and(Traits::HASH_ATTRIBUTES)
        .and(Traits::LIFETIMES)
        .and(Traits::NESTED_COMMENTS),
};

/// JavaScript: its comments, strings and words.
pub(crate) static JAVASCRIPT: Language = Language {
    name: "JavaScript",
    files: &["js", "mjs", "cjs", "jsx"],
    fence_names: &["javascript", "node"],
    line_comments: SLASHES,
    block_comment: C_BLOCK,
    quotes: &[BACKTICK_LINES, DOUBLE, SINGLE],
    vocabulary: Vocabulary {
        keywords: "async await break case catch class const continue debugger default delete \
            do else export extends finally for from function get if import in instanceof let \
            new of return set static super switch this throw try typeof var void while with \
            yield",
        constants: "Infinity NaN false null true undefined",
        function_definers: "function",
        type_definers: "class",
        ..Vocabulary::NONE
    },
    traits: C_LIKE.and(Traits::AT_ANNOTATIONS),
    ..BLANK
};

/// TypeScript: its comments, strings and words.
pub(crate) static TYPESCRIPT: Language = Language {
    name: "TypeScript",
    files: &["ts", "tsx", "mts", "cts"],
    fence_names: &["typescript"],
    line_comments: SLASHES,
    block_comment: C_BLOCK,
    quotes: &[BACKTICK_LINES, DOUBLE, SINGLE],
    vocabulary: Vocabulary {
        keywords: "abstract as asserts async await break case catch class const continue \
            debugger declare default delete do else enum export extends finally for from \
            function get if implements import in infer instanceof interface is keyof let \
            module namespace new of override private protected public readonly return \
            satisfies set static super switch this throw try type typeof var void while with \
            yield",
        constants: "Infinity NaN false null true undefined",
        types: "any bigint boolean never number object string symbol unknown void",
        function_definers: "function",
        type_definers: "class enum interface namespace type",
    },
    traits: C_LIKE.and(Traits::AT_ANNOTATIONS),
    ..BLANK
};

/// Go: its comments, strings and words.
pub(crate) static GO: Language = Language {
    name: "Go",
    files: &["go"],
    fence_names: &["golang"],
    line_comments: SLASHES,
    block_comment: C_BLOCK,
    quotes: &[DOUBLE, SINGLE, Quote::new("`", "`").raw().across_lines()],
    vocabulary: Vocabulary {
        keywords: "break case chan const continue default defer else fallthrough for func go \
            goto if import interface map package range return select struct switch type var",
        constants: "false iota nil true",
        types: "any bool byte complex128 complex64 error float32 float64 int int16 int32 \
            int64 int8 rune string uint uint16 uint32 uint64 uint8 uintptr",
        function_definers: "func",
        type_definers: "type",
    },
    traits: C_LIKE,
    ..BLANK
};

/// The words of C, which Objective-C shares.
const C_WORDS: Vocabulary = Vocabulary {
    keywords: "break case const continue default do else enum extern for goto if inline \
        register restrict return sizeof static struct switch typedef union volatile \
        while",
    constants: "NULL false true",
    types: "FILE bool char double float int int16_t int32_t int64_t int8_t intptr_t long \
        short signed size_t ssize_t uint16_t uint32_t uint64_t uint8_t uintptr_t \
        unsigned void",
    type_definers: "enum struct union",
    ..Vocabulary::NONE
};

/// C: its comments, strings and words.
pub(crate) static C: Language = Language {
    name: "C",
    files: &["c", "h"],
    line_comments: SLASHES,
    block_comment: C_BLOCK,
    quotes: &[DOUBLE, SINGLE],
    vocabulary: C_WORDS,
    traits: Traits::CALLS.and(Traits::PREPROCESSOR),
    ..BLANK
};

/// C++: its comments, strings and words.
pub(crate) static CPP: Language = Language {
    name: "C++",
    files: &[
        "cpp", "cc", "cxx", "c++", "hpp", "hh", "hxx", "h++", "ipp", "ino", "cu",
    ],
    fence_names: &["c++", "cplusplus"],
    line_comments: SLASHES,
    block_comment: C_BLOCK,
    quotes: &[DOUBLE, SINGLE],
    vocabulary: Vocabulary {
        keywords: "alignas alignof and asm auto break case catch class co_await co_return \
            co_yield concept const const_cast consteval constexpr constinit continue \
            decltype default delete do dynamic_cast else enum explicit export extern final \
            for friend goto if inline mutable namespace new noexcept not operator or \
            override private protected public register reinterpret_cast requires restrict \
            return sizeof static static_assert static_cast struct switch template this \
            thread_local throw try typedef typeid typename union using virtual volatile \
            while",
        constants: "NULL false nullptr true",
        types: "FILE bool char char16_t char32_t char8_t double float int int16_t int32_t \
            int64_t int8_t intptr_t long map short signed size_t ssize_t string uint16_t \
            uint32_t uint64_t uint8_t uintptr_t unsigned vector void wchar_t",
        type_definers: "class enum namespace struct union",
        ..Vocabulary::NONE
    },
    traits: C_LIKE.and(Traits::PREPROCESSOR),
    ..BLANK
};

/// Objective-C: its comments, strings and words.
pub(crate) static OBJECTIVE_C: Language = Language {
    name: "Objective-C",
    files: &["m", "mm"],
    fence_names: &["objc", "objective-c", "objectivec"],
    line_comments: SLASHES,
    block_comment: C_BLOCK,
    quotes: &[DOUBLE, SINGLE],
    vocabulary: C_WORDS,
    traits: C_LIKE.and(Traits::PREPROCESSOR).and(Traits::AT_ANNOTATIONS),
    ..BLANK
};

/// C#: its comments, strings and words.
pub(crate) static CSHARP: Language = Language {
    name: "C#",
    files: &["cs", "csx"],
    fence_names: &["csharp", "c#"],
    line_comments: SLASHES,
    block_comment: C_BLOCK,
    quotes: &[TRIPLE_DOUBLE, DOUBLE, SINGLE],
    string_prefixes: "@$",
    vocabulary: Vocabulary {
        keywords: "abstract as async await base break case catch checked class const continue \
            default delegate do else enum event explicit extern finally fixed for foreach \
            get goto if implicit in interface internal is lock namespace new operator out \
            override params private protected public readonly record ref return sealed set \
            sizeof stackalloc static struct switch this throw try typeof unchecked unsafe \
            using var virtual void volatile when where while yield",
        constants: "false null true",
        types: "bool byte char decimal double dynamic float int long object sbyte short \
            string uint ulong ushort",
        type_definers: "class enum interface namespace record struct",
        ..Vocabulary::NONE
    },
    traits: C_LIKE.and(Traits::PREPROCESSOR),
};

/// Java: its comments, strings and words.
pub(crate) static JAVA: Language = Language {
    name: "Java",
    files: &["java"],
    line_comments: SLASHES,
    block_comment: C_BLOCK,
    quotes: &[TRIPLE_DOUBLE, DOUBLE, SINGLE],
    vocabulary: Vocabulary {
        keywords: "abstract assert break case catch class continue default do else enum \
            extends final finally for if implements import instanceof interface native new \
            package permits private protected public record return sealed static strictfp \
            super switch synchronized this throw throws transient try var volatile while \
            yield",
        constants: "false null true",
        types: "Object String boolean byte char double float int long short void",
        type_definers: "class enum interface record",
        ..Vocabulary::NONE
    },
    traits: C_LIKE.and(Traits::AT_ANNOTATIONS),
    ..BLANK
};

/// Kotlin: its comments, strings and words.
pub(crate) static KOTLIN: Language = Language {
    name: "Kotlin",
    files: &["kt", "kts"],
    fence_names: &["kotlin"],
    line_comments: SLASHES,
    block_comment: C_BLOCK,
    quotes: &[TRIPLE_DOUBLE, DOUBLE, SINGLE],
    vocabulary: Vocabulary {
        keywords: "abstract actual annotation as break by catch class companion const \
            constructor continue crossinline data do else enum expect external final finally \
            for fun get if import in infix init inline inner interface internal is lateinit \
            noinline object open operator out override package private protected public \
            reified return sealed set super suspend tailrec this throw try typealias val var \
            vararg when where while",
        constants: "false null true",
        types: "Any Boolean Byte Char Double Float Int Long Nothing Short String Unit",
        function_definers: "fun",
        type_definers: "class interface object typealias",
    },
    traits: C_LIKE
        .and(Traits::AT_ANNOTATIONS)
        .and(Traits::NESTED_COMMENTS),
    ..BLANK
};

/// Scala: its comments, strings and words.
pub(crate) static SCALA: Language = Language {
    name: "Scala",
    files: &["scala", "sc", "sbt"],
    line_comments: SLASHES,
    block_comment: C_BLOCK,
    quotes: &[TRIPLE_DOUBLE, DOUBLE, SINGLE],
    string_prefixes: "sfr",
    vocabulary: Vocabulary {
        keywords: "abstract case catch class def do else enum extends final finally for \
            forSome given if implicit import lazy match new object override package private \
            protected return sealed super then this throw trait try type using val var while \
            with yield",
        constants: "false null true",
        function_definers: "def",
        type_definers: "class enum object trait type",
        ..Vocabulary::NONE
    },
    traits: C_LIKE
        .and(Traits::AT_ANNOTATIONS)
        .and(Traits::NESTED_COMMENTS),
    ..BLANK
};

/// Swift: its comments, strings and words.
pub(crate) static SWIFT: Language = Language {
    name: "Swift",
    files: &["swift"],
    line_comments: SLASHES,
    block_comment: C_BLOCK,
    quotes: &[TRIPLE_DOUBLE, DOUBLE],
    vocabulary: Vocabulary {
        keywords: "Self actor any as associatedtype async await break case catch class \
            continue default defer deinit do else enum extension fallthrough fileprivate for \
            func guard if import in init inout internal is let mutating nonmutating open \
            operator private protocol public repeat rethrows return self some static struct \
            subscript super switch throw throws try typealias var where while",
        constants: "false nil true",
        types: "Array Bool Character Dictionary Double Float Int Optional Set String Void",
        function_definers: "func",
        type_definers: "actor class enum extension protocol struct typealias",
    },
    traits: C_LIKE
        .and(Traits::AT_ANNOTATIONS)
        .and(Traits::NESTED_COMMENTS),
    ..BLANK
};

/// Dart: its comments, strings and words.
pub(crate) static DART: Language = Language {
    name: "Dart",
    files: &["dart"],
    line_comments: SLASHES,
    block_comment: C_BLOCK,
    quotes: &[TRIPLE_DOUBLE, TRIPLE_SINGLE, DOUBLE, SINGLE],
    string_prefixes: "r",
    vocabulary: Vocabulary {
        keywords: "abstract as assert async await break case catch class const continue \
            covariant default deferred do dynamic else enum export extends extension \
            external factory final finally for get hide if implements import in interface is \
            late library mixin new of on operator part required rethrow return sealed set \
            show static super switch sync this throw try typedef var void when while with \
            yield",
        constants: "false null true",
        types: "Future List Map Object Set Stream String bool double int num",
        type_definers: "class enum extension mixin typedef",
        ..Vocabulary::NONE
    },
    traits: C_LIKE.and(Traits::AT_ANNOTATIONS),
    ..BLANK
};

/// PHP: its comments, strings and words.
pub(crate) static PHP: Language = Language {
    name: "PHP",
    files: &["php", "phtml"],
    line_comments: &["//", "#"],
    block_comment: C_BLOCK,
    quotes: &[DOUBLE_LINES, SINGLE],
    vocabulary: Vocabulary {
        keywords: "abstract and array as break callable case catch class clone const continue \
            declare default do echo else elseif empty enddeclare endfor endforeach endif \
            endswitch endwhile enum extends final finally fn for foreach function global \
            goto if implements include include_once instanceof insteadof interface isset \
            list match namespace new or print private protected public readonly require \
            require_once return static switch throw trait try unset use var while xor yield",
        constants: "FALSE NULL TRUE false null true",
        types: "bool float int iterable mixed never object string void",
        function_definers: "fn function",
        type_definers: "class enum interface trait",
    },
    traits: C_LIKE,
    ..BLANK
};

/// Zig: its comments, strings and words.
pub(crate) static ZIG: Language = Language {
    name: "Zig",
    files: &["zig", "zon"],
    line_comments: SLASHES,
    quotes: &[DOUBLE, SINGLE],
    vocabulary: Vocabulary {
        keywords: "addrspace align allowzero and anyframe anytype asm async await break \
            callconv catch comptime const continue defer else enum errdefer error export \
            extern fn for if inline linksection noalias noinline nosuspend opaque or orelse \
            packed pub resume return struct suspend switch test threadlocal try union \
            unreachable usingnamespace var volatile while",
        constants: "false null true undefined",
        types: "anyerror bool comptime_float comptime_int f16 f32 f64 i16 i32 i64 i8 isize \
            noreturn type u16 u32 u64 u8 usize void",
        function_definers: "fn",
        ..Vocabulary::NONE
    },
    traits: C_LIKE,
    ..BLANK
};
