package io.duraflow.examples.nexmark;

/**
 * An item put up for sale: Nexmark's {@code Auction} event. Ids count up from {@link
 * NexmarkConfig#FIRST_AUCTION_ID} in the order the auctions are generated; the seller is a
 * person generated before the auction.
 *
 * @param id the auction's id
 * @param itemName random letters and spaces, at most 19 characters
 * @param description random letters and spaces, at most 99 characters
 * @param initialBid the starting price, in cents
 * @param reserve the lowest price the seller accepts, in cents; above {@code initialBid}
 * @param dateTime the event time, epoch milliseconds
 * @param expires when the auction closes, epoch milliseconds; after {@code dateTime}
 * @param seller the id of the selling person
 * @param category the item's category, from {@link NexmarkConfig#FIRST_CATEGORY_ID} on
 * @param extra random letters that pad the event to {@link NexmarkConfig#avgAuctionBytes()} on average
 */
public record Auction(long id, String itemName, String description, long initialBid, long reserve, long dateTime,
        long expires, long seller, long category, String extra) {}
