package policy

import "strings"

// foldableBuiltins are the builtins whose result depends on their arguments alone: a
// rule calling only these (and reading no input) has the same value on every request,
// so it may be evaluated once at load. Anything else (rego.metadata.*, trace, print,
// the clock, randomness, the network, ...) keeps the rule out of folding.
var foldableBuiltins = setOf(
	// operators and the forms the compiler rewrites to
	"eq", "assign", "equal", "neq", "lt", "lte", "gt", "gte",
	"plus", "minus", "mul", "div", "rem", "and", "or",
	"internal.member_2", "internal.member_3",
	// numbers and aggregates
	"abs", "ceil", "floor", "round", "numbers.range", "numbers.range_step",
	"count", "sum", "product", "max", "min", "sort", "all", "any",
	// arrays, sets, objects
	"array.concat", "array.slice", "array.reverse",
	"intersection", "union", "set_diff",
	"object.get", "object.keys", "object.remove", "object.union", "object.union_n",
	"object.filter", "object.subset",
	"json.filter", "json.remove", "json.patch", "walk",
	// strings
	"concat", "contains", "endswith", "startswith", "format_int", "indexof", "indexof_n",
	"lower", "upper", "replace", "split", "sprintf", "substring", "trim", "trim_left",
	"trim_prefix", "trim_right", "trim_suffix", "trim_space", "strings.count",
	"strings.replace_n", "strings.reverse", "strings.any_prefix_match",
	"strings.any_suffix_match", "strings.render_template",
	"regex.match", "regex.is_valid", "regex.split", "regex.find_n",
	"regex.find_all_string_submatch_n", "regex.replace", "regex.template_match",
	"glob.match", "glob.quote_meta",
	// types and conversions
	"is_array", "is_boolean", "is_null", "is_number", "is_object", "is_set", "is_string",
	"type_name", "to_number", "units.parse", "units.parse_bytes",
	"json.marshal", "json.marshal_with_options", "json.unmarshal", "json.is_valid",
	"base64.encode", "base64.decode", "base64url.encode", "base64url.encode_no_pad",
	"base64url.decode", "hex.encode", "hex.decode", "urlquery.encode", "urlquery.decode",
	"urlquery.encode_object", "urlquery.decode_object",
	"crypto.md5", "crypto.sha1", "crypto.sha256",
	"semver.compare", "semver.is_valid",
	// time, from values given (never the clock)
	"time.parse_rfc3339_ns", "time.parse_ns", "time.parse_duration_ns", "time.format",
	"time.date", "time.clock", "time.weekday", "time.add_date", "time.diff",
)

func setOf(names ...string) map[string]bool {
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[n] = true
	}
	return out
}

// foldableBuiltin says whether a call of the builtin name may be folded.
func foldableBuiltin(name string) bool {
	return foldableBuiltins[name] && !strings.HasPrefix(name, "rego.")
}
