# bash completion for golaunch and benches (gompi). Load it with
#   source <(golaunch --completion bash)
# or save that output under ~/.local/share/bash-completion/completions/ as
# golaunch and benches. Flags and suites are read from the commands' own
# --help, so the completion never lags behind them.
_gompi_complete() {
	local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[0]} help words
	if [[ $cmd == *benches && $COMP_CWORD -eq 1 ]]; then
		words=$("$cmd" --help 2>&1 | awk '/^  [a-z0-9-]+ /{print $1}')
	elif [[ $cur == -* ]]; then
		if [[ $cmd == *benches ]]; then
			help=$("$cmd" "${COMP_WORDS[1]}" --help 2>&1)
		else
			help=$("$cmd" --help 2>&1)
		fi
		words=$(grep -o -- '--[a-z][a-z0-9-]*' <<<"$help" | sort -u)
	else
		return 0 # files and commands: bash's own (-o default)
	fi
	COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -o bashdefault -F _gompi_complete golaunch benches
