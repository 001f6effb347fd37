package handoff.lib_test

import data.handoff.lib

test_path_string if {
	lib.path_string(["output", "content", "claims", 2, "text"]) == "output.content.claims[2].text"
	lib.path_string(["context"]) == "context"
	lib.path_string([]) == ""
}

test_short if {
	lib.short("abc") == "abc"
	s := concat("", [x | some _ in numbers.range(1, 100); x := "a"])
	r := lib.short(s)
	count(r) == 80
	endswith(r, "...")
}

test_with_article if {
	lib.with_article("approval") == "an approval"
	lib.with_article("Outcome") == "an Outcome"
	lib.with_article("handoff") == "a handoff"
}

test_non_blank if {
	lib.non_blank("x")
	not lib.non_blank(" \t")
	not lib.non_blank(3)
}
