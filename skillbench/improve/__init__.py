"""Can the description be improved without overfitting? Splits, proposers, the loop, overfitting."""
