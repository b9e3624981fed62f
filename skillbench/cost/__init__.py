"""Money, in one room: what a workflow will cost (`estimate`, `plan`), what it did cost
(`budget.SpendMeter`, `actual`), and the `--max-cost` cap (`limit.cost_limit`, `budget.Budget`).

The shapes are below the backends, which produce and price usage: the token type
(`schemas.cost.TokenCounts`, with `+`), the cost block (`schemas.cost.CostBlock`) and the price
table with the one dollar formula (`schemas.prices.PriceTable.dollars`). Question-level planners
stay with their question (`trigger.cost`, `improve.cost`, `behavior.cost`) and build their
requests with the functions their workflow sends.
"""
