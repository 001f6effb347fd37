package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

var completionCmd = &command{
	name:  "completion",
	args:  "bash|zsh|fish",
	short: "print the shell completion script for bash, zsh or fish",
	long: `Completion prints a script that completes handoffctl's commands, their flags, the
values of -o, and file names where a flag or argument takes a file or directory.

  bash   source <(handoffctl completion bash)   (or save it in
         /etc/bash_completion.d/handoffctl)
  zsh    handoffctl completion zsh > "${fpath[1]}/_handoffctl"   (then compinit)
  fish   handoffctl completion fish > ~/.config/fish/completions/handoffctl.fish

The script is generated from the commands and flags of this build: print it again after
an upgrade. -o json does not apply: the output is the script.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		return func(ctx context.Context, c *cli, args []string) error {
			if len(args) != 1 {
				return usagef("completion takes one shell: bash, zsh or fish")
			}
			spec := completionSpec()
			switch args[0] {
			case "bash":
				writeBashCompletion(c.stdout, spec)
			case "zsh":
				writeZshCompletion(c.stdout, spec)
			case "fish":
				writeFishCompletion(c.stdout, spec)
			default:
				return usagef("no completion for shell %q%s: bash, zsh or fish", args[0], didYouMean(closest(args[0], []string{"bash", "zsh", "fish"})))
			}
			return nil
		}
	},
}

// completionFlag is one flag as a completion script needs it.
type completionFlag struct {
	name  string
	usage string
	value string // "" for a boolean flag; else the value's name from its usage (FILE, DIR, T…)
}

// takesPath says whether the flag's value is a file or directory.
func (f completionFlag) takesPath() bool {
	return strings.Contains(f.value, "FILE") || strings.Contains(f.value, "DIR")
}

// completionCommand is one command as a completion script needs it.
type completionCommand struct {
	name  string
	short string
	flags []completionFlag
	words []string // the fixed words its positional arguments take, if any
}

// completionTree is every command with its flags, and the global flags.
type completionTree struct {
	commands []completionCommand
	globals  []completionFlag
}

// completionSpec reads the commands and their flags from the command table.
func completionSpec() completionTree {
	var tree completionTree
	for _, cmd := range commands {
		fs := newFlagSet(cmd, &cli{output: "text"})
		cmd.setup(fs)
		cc := completionCommand{name: cmd.name, short: cmd.short}
		fs.VisitAll(func(f *flag.Flag) {
			if !globalFlags[f.Name] {
				cc.flags = append(cc.flags, flagOf(f))
			}
		})
		switch cmd.name {
		case "completion":
			cc.words = []string{"bash", "zsh", "fish"}
		}
		tree.commands = append(tree.commands, cc)
		if tree.globals == nil {
			for _, name := range sortedKeys(globalFlags) {
				tree.globals = append(tree.globals, flagOf(fs.Lookup(name)))
			}
		}
	}
	help := completionCommand{name: "help", short: "print the list of commands, or one command's help"}
	for _, cmd := range commands {
		help.words = append(help.words, cmd.name)
	}
	tree.commands = append(tree.commands, help)
	return tree
}

func flagOf(f *flag.Flag) completionFlag {
	value, usage := flag.UnquoteUsage(f)
	if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
		value = ""
	}
	return completionFlag{name: f.Name, usage: usage, value: value}
}

// dashedNames lists flags as typed: -o, --tenant.
func dashedNames(flags []completionFlag) string {
	var names []string
	for _, f := range flags {
		names = append(names, dashed(f.name))
	}
	sort.Strings(names)
	return strings.Join(names, " ")
}

func writeBashCompletion(w io.Writer, tree completionTree) {
	var names []string
	for _, c := range tree.commands {
		names = append(names, c.name)
	}
	valued := map[string]completionFlag{}
	for _, f := range tree.globals {
		if f.value != "" {
			valued[dashed(f.name)] = f
		}
	}
	for _, c := range tree.commands {
		for _, f := range c.flags {
			if f.value != "" {
				valued[dashed(f.name)] = f
			}
		}
	}
	var paths, others []string
	for _, name := range sortedKeys(valued) {
		switch f := valued[name]; {
		case name == "-o":
		case f.takesPath():
			paths = append(paths, name)
		default:
			others = append(others, name)
		}
	}
	fmt.Fprintf(w, `# bash completion for handoffctl (handoffctl completion bash)
_handoffctl() {
	local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
	local commands="%s"
	local globals="%s"
	local cmd="" i w
	for ((i = 1; i < COMP_CWORD; i++)); do
		w="${COMP_WORDS[i]}"
		case "$w" in
		%s) ((i++)) ;;
		-*) ;;
		*) cmd="$w"; break ;;
		esac
	done
	case "$prev" in
	-o | --o) COMPREPLY=($(compgen -W "text json" -- "$cur")); return ;;
	%s) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")); return ;;
	%s) COMPREPLY=(); return ;;
	esac
	local flags="" words="" files=1
	case "$cmd" in
	"") COMPREPLY=($(compgen -W "$commands $globals" -- "$cur")); return ;;
`, strings.Join(names, " "), dashedNames(tree.globals),
		strings.Join(append(append([]string{"-o", "--o"}, paths...), others...), " | "),
		strings.Join(paths, " | "), strings.Join(others, " | "))
	for _, c := range tree.commands {
		fmt.Fprintf(w, "\t%s) flags=%q", c.name, dashedNames(c.flags))
		if len(c.words) > 0 {
			fmt.Fprintf(w, "; words=%q; files=0", strings.Join(c.words, " "))
		}
		fmt.Fprint(w, " ;;\n")
	}
	fmt.Fprint(w, `	esac
	if [[ "$cur" == -* ]]; then
		COMPREPLY=($(compgen -W "$flags $globals" -- "$cur"))
	elif ((files)); then
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur"))
	else
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
	fi
}
complete -F _handoffctl handoffctl
`)
}

// writeZshCompletion writes a native zsh completion function: commands with their
// descriptions, each command's flags and the global ones, values where they are known.
func writeZshCompletion(w io.Writer, tree completionTree) {
	fmt.Fprint(w, `#compdef handoffctl
# zsh completion for handoffctl (handoffctl completion zsh)
_handoffctl() {
	local curcontext="$curcontext" state line ret=1
	local -a commands globals
	commands=(
`)
	for _, c := range tree.commands {
		fmt.Fprintf(w, "\t\t%s\n", zshQuote(c.name+":"+strings.ReplaceAll(c.short, ":", `\:`)))
	}
	fmt.Fprint(w, "\t)\n\tglobals=(\n")
	for _, f := range tree.globals {
		fmt.Fprintf(w, "\t\t%s\n", zshQuote(zshFlag(f)))
	}
	fmt.Fprint(w, `	)
	_arguments -C "${globals[@]}" '1: :->command' '*:: :->args' && ret=0
	case $state in
	command) _describe -t commands 'handoffctl command' commands && ret=0 ;;
	args)
		case $line[1] in
`)
	for _, c := range tree.commands {
		fmt.Fprintf(w, "\t\t%s) _arguments \"${globals[@]}\"", c.name)
		for _, f := range c.flags {
			fmt.Fprintf(w, " %s", zshQuote(zshFlag(f)))
		}
		if len(c.words) > 0 {
			fmt.Fprintf(w, " %s", zshQuote("*:"+c.name+":("+strings.Join(c.words, " ")+")"))
		} else {
			fmt.Fprint(w, " '*:file:_files'")
		}
		fmt.Fprint(w, " && ret=0 ;;\n")
	}
	fmt.Fprint(w, `		esac ;;
	esac
	return ret
}
if [ "$funcstack[1]" = "_handoffctl" ]; then
	_handoffctl "$@"
else
	compdef _handoffctl handoffctl
fi
`)
}

// zshFlag is a flag's _arguments spec: --name[usage]:VALUE:action.
func zshFlag(f completionFlag) string {
	desc := strings.NewReplacer("[", "(", "]", ")", ":", "\\:").Replace(f.usage)
	spec := dashed(f.name) + "[" + desc + "]"
	switch {
	case f.value == "":
		return spec
	case f.name == "o":
		return spec + ":format:(text json)"
	case f.takesPath():
		return spec + ":" + strings.ToLower(f.value) + ":_files"
	default:
		return spec + ":" + strings.ToLower(f.value) + ": "
	}
}

// zshQuote quotes s for zsh in single quotes, closing and reopening them around each
// escaped single quote.
func zshQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func writeFishCompletion(w io.Writer, tree completionTree) {
	fmt.Fprint(w, "# fish completion for handoffctl (handoffctl completion fish)\ncomplete -c handoffctl -f\n")
	var names []string
	for _, c := range tree.commands {
		names = append(names, c.name)
	}
	noCommand := "not __fish_seen_subcommand_from " + strings.Join(names, " ")
	for _, c := range tree.commands {
		fmt.Fprintf(w, "complete -c handoffctl -n %s -a %s -d %s\n", fishQuote(noCommand), c.name, fishQuote(c.short))
	}
	for _, f := range tree.globals {
		fmt.Fprintln(w, fishFlag(f, ""))
	}
	for _, c := range tree.commands {
		cond := "__fish_seen_subcommand_from " + c.name
		for _, f := range c.flags {
			fmt.Fprintln(w, fishFlag(f, cond))
		}
		switch {
		case len(c.words) > 0:
			fmt.Fprintf(w, "complete -c handoffctl -n %s -a %s\n", fishQuote(cond), fishQuote(strings.Join(c.words, " ")))
		default:
			fmt.Fprintf(w, "complete -c handoffctl -n %s -F\n", fishQuote(cond))
		}
	}
}

func fishFlag(f completionFlag, cond string) string {
	var b strings.Builder
	b.WriteString("complete -c handoffctl")
	if cond != "" {
		fmt.Fprintf(&b, " -n %s", fishQuote(cond))
	}
	if len(f.name) == 1 {
		fmt.Fprintf(&b, " -s %s", f.name)
	} else {
		fmt.Fprintf(&b, " -l %s", f.name)
	}
	switch {
	case f.name == "o":
		b.WriteString(" -x -a 'text json'")
	case f.takesPath():
		b.WriteString(" -r -F")
	case f.value != "":
		b.WriteString(" -x")
	}
	fmt.Fprintf(&b, " -d %s", fishQuote(f.usage))
	return b.String()
}

// fishQuote quotes s for fish: single quotes, with \ and ' escaped.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
