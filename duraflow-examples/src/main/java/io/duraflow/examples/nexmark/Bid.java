package io.duraflow.examples.nexmark;

/**
 * An offer for an item: Nexmark's {@code Bid} event. The auction and the bidder were generated
 * before the bid; the auction is the hot one or among the newest {@link
 * NexmarkConfig#inFlightAuctions()}, the ones likely still open.
 *
 * @param auction the id of the auction bid on
 * @param bidder the id of the bidding person
 * @param price the offer, in cents
 * @param channel where the bid came from: one of four hot channels ({@code "Google"}, ...) or
 *     {@code "channel-<0..9999>"}
 * @param url the channel's item URL
 * @param dateTime the event time, epoch milliseconds
 * @param extra random letters that pad the event to {@link NexmarkConfig#avgBidBytes()} on average
 */
public record Bid(long auction, long bidder, long price, String channel, String url, long dateTime, String extra) {}
