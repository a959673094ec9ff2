//! Closed sets of names: each value, its one wire spelling, parsing and serde.

/// A closed set of wire names, for code that treats every vocabulary alike (the generator's
/// schema checks list the valid spellings and suggest the nearest one).
pub trait Vocabulary: Copy + Eq + 'static {
    /// What a value is called in messages: `danger level`.
    const WHAT: &'static str;
    /// Every value, in order.
    const ALL: &'static [Self];
    /// The canonical spelling of every value, in the order of [`Vocabulary::ALL`].
    const NAMES: &'static [&'static str];
    /// Other spellings accepted on input, e.g. the official adapter schema's trust levels.
    const ALIASES: &'static [&'static str];

    /// The canonical wire spelling.
    fn as_str(self) -> &'static str;

    /// The value spelled `text` (canonical spellings and any aliases).
    fn parse(text: &str) -> Option<Self>;
}

/// Declares a vocabulary enum: the variants with their spellings (plus optional aliases
/// accepted on input), the [`Vocabulary`] impl, `Display`, and serde as the spelling.
///
/// ```
/// aqlgen_model::vocabulary! {
///     /// How a page is addressed.
///     pub enum Style ("pagination style") {
///         /// By offset.
///         Offset = "offset",
///         /// By cursor.
///         Cursor = "cursor",
///     }
/// }
/// assert_eq!(Style::parse("cursor"), Some(Style::Cursor));
/// assert_eq!(Style::Offset.to_string(), "offset");
/// ```
#[macro_export]
macro_rules! vocabulary {
    (
        $(#[$meta:meta])*
        pub enum $name:ident ($what:literal) {
            $($(#[$vmeta:meta])* $variant:ident = $spelling:literal,)+
        }
        $(aliases { $($alias_variant:ident = $alias:literal,)+ })?
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
        }

        impl $name {
            /// Every value, in order.
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];

            /// The canonical wire spelling.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $spelling,)+
                }
            }

            /// The value spelled `text`, if any.
            pub fn parse(text: &str) -> Option<Self> {
                match text {
                    $($spelling => Some(Self::$variant),)+
                    $($($alias => Some(Self::$alias_variant),)+)?
                    _ => None,
                }
            }
        }

        impl $crate::Vocabulary for $name {
            const WHAT: &'static str = $what;
            const ALL: &'static [Self] = Self::ALL;
            const NAMES: &'static [&'static str] = &[$($spelling),+];
            const ALIASES: &'static [&'static str] = &[$($($alias),+)?];

            fn as_str(self) -> &'static str {
                Self::as_str(self)
            }

            fn parse(text: &str) -> Option<Self> {
                Self::parse(text)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = <String as ::serde::Deserialize>::deserialize(deserializer)?;
                Self::parse(&text).ok_or_else(|| {
                    <D::Error as ::serde::de::Error>::unknown_variant(
                        &text,
                        <Self as $crate::Vocabulary>::NAMES,
                    )
                })
            }
        }
    };
}
