# fish completion for kbx.
#
# Like completions/kbx.bash, it asks the kbx program for everything, so
# that it cannot drift from the code: "kbx --list-cmds" for the commands,
# "kbx --list-opts" for the options before the command (when this kbx
# answers it), "kbx CMD --list-opts" for a command's options and the
# values of keyword options, the placeholder in the usage line of
# "kbx CMD -h" for what its operands are, and
# "kbx complete-symbols --prefix=P" for the names in the index.  When
# one of them fails, nothing is offered for that word.
#
# Install it as $(datadir)/fish/vendor_completions.d/kbx.fish.

# Print the candidates for the token under the cursor, one per line.
function __kbx_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)

    # The options before the command (kept to pass on to kbx, so that
    # names come from the index the command line will use), and the
    # command.
    set -l global
    set -l cmd
    set -l cmd_index 0
    set -l i 2
    while test $i -le (count $tokens)
        set -l w $tokens[$i]
        switch $w
            case -C --kbx-dir --repo
                set -l next (math $i + 1)
                if test $next -le (count $tokens)
                    set -a global $w $tokens[$next]
                end
                set i (math $i + 2)
                continue
            case '--kbx-dir=*' '--repo=*'
                set -a global $w
            case '-*'
            case '*'
                set cmd $w
                set cmd_index $i
                break
        end
        set i (math $i + 1)
    end

    set -l prev $tokens[-1]

    if test -z "$cmd"
        if test "$prev" = --repo; and test (count $tokens) -gt 1
            __kbx_values @repo "$cur"
        else if string match -q -- '--repo=*' "$cur"
            __kbx_values @repo "" | string replace -r -- '^' '--repo='
        else if contains -- "$prev" -C --kbx-dir; and test (count $tokens) -gt 1
            __fish_complete_directories "$cur"
        else if string match -q -- '--kbx-dir=*' "$cur"
            __fish_complete_directories (string replace -- '--kbx-dir=' '' "$cur") | string replace -r -- '^' '--kbx-dir='
        else if string match -q -- '-*' "$cur"
            command kbx --list-opts 2>/dev/null | string replace -r -- '\t.*' ''
        else
            command kbx --list-cmds 2>/dev/null
        end
        return
    end

    # Ask only commands kbx lists: an unknown name may be a kbx-NAME
    # program, which must not be run just because Tab was pressed.
    contains -- "$cmd" (command kbx $global --list-cmds 2>/dev/null); or return

    set -l operands_only 0
    if test (count $tokens) -gt $cmd_index
        contains -- -- $tokens[(math $cmd_index + 1)..-1]; and set operands_only 1
        # a command's --repo names the index its operands complete from
        set -l j (math $cmd_index + 1)
        while test $j -le (count $tokens)
            switch $tokens[$j]
                case --
                    break
                case '--repo=*'
                    set -a global $tokens[$j]
                case --repo
                    if test $j -lt (count $tokens)
                        set -a global --repo $tokens[(math $j + 1)]
                    end
            end
            set j (math $j + 1)
        end
    end

    set -l lines (command kbx $global $cmd --list-opts 2>/dev/null)

    if test $operands_only = 0; and string match -q -- '--*=*' "$cur"
        # "--name=VALUE"
        set -l name (string replace -r -- '=.*' '=' "$cur")
        set -l value (string replace -r -- '^[^=]*=' '' "$cur")
        for line in $lines
            set -l parts (string split -m1 \t -- $line)
            test "$parts[1]" = "$name"; or continue
            if set -q parts[2]
                __kbx_values "$parts[2]" "$value" $global | string replace -r -- '^' "$name"
            end
        end
        return
    end
    if test $operands_only = 0; and test (count $tokens) -gt $cmd_index; and string match -q -- '--*' "$prev"
        # "--name VALUE": the value as a word of its own
        for line in $lines
            set -l parts (string split -m1 \t -- $line)
            test "$parts[1]" = "$prev="; or continue
            set -q parts[2]; and __kbx_values "$parts[2]" "$cur" $global
            return
        end
    end
    if test $operands_only = 0; and string match -q -- '-*' "$cur"
        for line in $lines
            string replace -r -- '\t.*' '' $line
        end
        return
    end

    set -l usage (command kbx $global $cmd -h 2>/dev/null)
    if string match -q -r -- '<symbol>|<class>' "$usage"
        __kbx_values @symbol "$cur" $global
    else if string match -q -- '*<file>*' "$usage"
        command kbx $global complete-symbols --kind=file,module --prefix="$cur" 2>/dev/null
        __fish_complete_path "$cur"
    else if string match -q -- '*<path>*' "$usage"
        __fish_complete_path "$cur"
    else if string match -q -r -- '<command>|<topic>' "$usage"
        __kbx_values @command "$cur" $global
        if test "$cmd" = help
            command kbx $global --list-topics 2>/dev/null
        end
    else if string match -q -- '*<key>*' "$usage"
        command kbx $global config --list --defaults 2>/dev/null | string replace -r '=.*' ''
    end
end

# __kbx_values SOURCE VALUE GLOBAL...: the values for SOURCE, the second
# field of a --list-opts line.
function __kbx_values
    set -l source $argv[1]
    set -l value $argv[2]
    set -l global $argv[3..-1]
    switch $source
        case @symbol
            command kbx $global complete-symbols --prefix="$value" 2>/dev/null
        case @path
            __fish_complete_path "$value"
        case @command
            command kbx $global --list-cmds 2>/dev/null
        case @repo
            # the list is the user's, whatever index the line names
            command kbx repos --names 2>/dev/null
        case '@*'
        case '*'
            string split ' ' -- $source
    end
end

complete -c kbx -f -a '(__kbx_complete)'
