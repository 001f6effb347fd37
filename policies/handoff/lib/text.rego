package handoff.lib

# text.rego writes the values a message quotes.

# path_string turns a walk path into the request path notation:
# ["output", "content", "claims", 2] is output.content.claims[2].
path_string(path) := concat("", [_segment(i, s) | some i, s in path])

_segment(i, s) := sprintf("[%d]", [s]) if is_number(s)

else := s if i == 0

else := sprintf(".%v", [s])

# short cuts quoted text down to 80 characters for messages.
short(s) := sprintf("%s...", [substring(s, 0, 77)]) if count(s) > 80

else := s

# with_article puts "a" or "an" before a word for messages: "an approval", "a handoff".
with_article(word) := sprintf("an %s", [word]) if {
	regex.match(`^[aeiouAEIOU]`, word)
} else := sprintf("a %s", [word])

# non_blank holds for a string with something other than white space.
non_blank(s) if {
	is_string(s)
	trim_space(s) != ""
}
