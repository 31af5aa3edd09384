package io.duraflow.examples.nexmark;

/**
 * A new user of the auction site: Nexmark's {@code Person} event. Ids count up from {@link
 * NexmarkConfig#FIRST_PERSON_ID} in the order the persons are generated, so every id up to the
 * newest one exists.
 *
 * @param id the person's id
 * @param name first and last name from Nexmark's short lists, such as {@code "Peter Shultz"}
 * @param emailAddress a made-up address: a few random letters, {@code @}, a few more, {@code .com}
 * @param creditCard four groups of four digits
 * @param city one of Nexmark's ten US cities
 * @param state one of Nexmark's six US states (not necessarily the city's)
 * @param dateTime the event time, epoch milliseconds
 * @param extra random letters that pad the event to {@link NexmarkConfig#avgPersonBytes()} on average
 */
public record Person(long id, String name, String emailAddress, String creditCard, String city, String state,
        long dateTime, String extra) {}
