"""Feishu/Lark: the chat port on Feishu (chat.py, with the official SDK lark-oapi: sdk.py), its message cards
(cards.py, JSON 2.0 with zh_cn and en_us content), the callbacks' checks (callback.py: signature, encryption,
verification token), and what each event and card action does (events.py). Only processes that talk to Feishu
import this package; the terminal commands never do (a test says so)."""
