"""The board (issue 48): a read-only web page per team and channel, served by `serve` at /board/<token>, money
first: what is idle now, who and which project billed idle money, budgets, prepaid runways, the week's chart and
the prices' sources. Its figures are the bot's own (bot/board/figures.py reads them where every surface does)."""
