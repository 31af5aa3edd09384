package io.duraflow.cli;

import java.util.HashSet;
import java.util.Set;
import java.util.function.BooleanSupplier;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * How every {@code duraflow} command behaves, whatever it does: it has {@code -h/--help} (which
 * comes before any check of its arguments); a bad argument is one line on stderr saying what is
 * expected, with exit code 2; a failing command is one line, {@code duraflow: <what and what to
 * do>}, with exit code 1 or its own, and its stack trace only under {@code --verbose}; and the
 * process logs as a server (INFO on stdout) or as a client (WARN on stderr) by the command that
 * runs, not by where the global options stand.
 */
final class CommandLineConventions {
    private CommandLineConventions() {}

    /**
     * @param configureLogging whether to choose the log level from the parsed command before
     *     anything logs; only for a fresh process, since logback reads these settings once
     * @param verbose whether --verbose was given, read when a command failed
     */
    static CommandLine apply(CommandLine commandLine, boolean configureLogging, BooleanSupplier verbose) {
        addHelpOptions(commandLine, new HashSet<>());
        commandLine.setParameterExceptionHandler((e, args) -> {
            CommandLine command = e.getCommandLine();
            command.getErr().println("duraflow: " + argumentError(e));
            return command.getCommandSpec().exitCodeOnInvalidInput();
        });
        commandLine.setExecutionStrategy(parsed -> {
            if (configureLogging) {
                configureLogging(isServer(parsed));
            }
            try {
                io.duraflow.util.Failpoints.validate();
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ExecutionException(parsed.commandSpec().commandLine(), e.getMessage(),
                        new CliException(e.getMessage(), 2, e));
            }
            return new CommandLine.RunLast().execute(parsed);
        });
        commandLine.setExecutionExceptionHandler((e, cmd, parsed) -> {
            Throwable shown = e instanceof CommandLine.ExecutionException && e.getCause() != null ? e.getCause() : e;
            cmd.getErr().println("duraflow: " + Duraflow.oneLine(shown));
            if (verbose.getAsBoolean()) {
                shown.printStackTrace(cmd.getErr());
            }
            return shown instanceof CliException cli ? cli.exitCode() : 1;
        });
        return commandLine;
    }

    /** Whether the command that runs is a server, wherever the global options stand before or after it. */
    static boolean isServer(CommandLine.ParseResult parsed) {
        CommandLine.ParseResult last = parsed;
        while (last.subcommand() != null) {
            last = last.subcommand();
        }
        return last.commandSpec().userObject() instanceof Duraflow.ServerCommand;
    }

    /**
     * Sets what logback.xml reads, before the first logger exists: a client shows only results
     * and errors on the terminal (WARN, on stderr), and nothing of the ZooKeeper and Curator
     * clients, whose warnings carry stack traces for what the command says in its own one-line
     * error (such as ZooKeeper being unreachable). A server keeps the defaults: INFO on stdout.
     * A level set with -Dduraflow.log.level on the JVM wins.
     */
    private static void configureLogging(boolean server) {
        if (server || System.getProperty("duraflow.log.level") != null) {
            return;
        }
        System.setProperty("duraflow.log.level", "WARN");
        System.setProperty("duraflow.log.target", "System.err");
        if (System.getProperty("duraflow.log.zookeeper.level") == null) {
            System.setProperty("duraflow.log.zookeeper.level", "OFF");
        }
    }

    /** Every command and subcommand gets -h/--help, as the README promises, also those added later. */
    private static void addHelpOptions(CommandLine command, Set<CommandLine> seen) {
        if (!seen.add(command)) {
            return;
        }
        CommandSpec spec = command.getCommandSpec();
        if (spec.options().stream().noneMatch(OptionSpec::usageHelp)) {
            spec.addOption(OptionSpec.builder("-h", "--help").usageHelp(true)
                    .description("Show this help message and exit.").build());
        }
        command.getSubcommands().values().forEach(sub -> addHelpOptions(sub, seen));
    }

    /** A bad argument as one line that says what is expected. */
    static String argumentError(CommandLine.ParameterException e) {
        CommandLine command = e.getCommandLine();
        String name = command.getCommandSpec().qualifiedName();
        String help = "; see '" + name + " --help'";
        String message = String.valueOf(e.getMessage());
        if (e.getArgSpec() instanceof OptionSpec option && message.contains("KEY=VALUE format")) {
            String given = message.substring(message.lastIndexOf(" but was ") + " but was ".length());
            String example = option.longestName().equals("-D") ? "-D heartbeat.timeout=5s"
                    : option.longestName() + " words=1000";
            return option.longestName() + " needs key=value, got '" + given + "' (e.g. " + example + ")";
        }
        if (message.startsWith("Missing required subcommand")) {
            return "'" + name + "' needs a command: " + String.join(", ", command.getSubcommands().keySet()) + help;
        }
        if (e instanceof CommandLine.UnmatchedArgumentException unmatched && !unmatched.getSuggestions().isEmpty()) {
            return message + "; did you mean " + String.join(" or ", unmatched.getSuggestions()) + "?" + help;
        }
        int newline = message.indexOf('\n');
        return (newline < 0 ? message : message.substring(0, newline)) + help;
    }
}
