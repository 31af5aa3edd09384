package io.duraflow.cli;

import io.duraflow.config.ConfigRegistry;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

@Command(name = "config", description = "Lists every configuration option with its default.")
final class ConfigCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        System.out.println(ConfigRegistry.global().renderTable());
        return 0;
    }
}
