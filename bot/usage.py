"""The /gpu-advise usage text, in both languages."""

from __future__ import annotations

from rules.messages import Lang

USAGE = {
    Lang.EN: """*GPU Advisor* — `/gpu-advise` and:
• _(nothing)_: answer 5 questions in a thread, by buttons or by replying in plain words
• `form`: all the questions in one form
• `10h mem=70/80 mp=no freq=daily resume=no [workload=lora] [phase=stable] [gpu=A100-80GB] [hours=4x14]`: everything at once
   keys: `duration`/`dur` (or the first word), `mem`, `mp`, `freq`, `resume`, `workload`, `phase`, `gpu`, `hours` (hours a day x days), `qps`, `p99`, `ckpt`, `size`, `cards`; Chinese values work (`resume=不能`); quote values with spaces (`dur="about 10 hours"`)
• `prices [gpu]`: cached prices with their source and age
• `quote gpu=A100 hours=4x14 [share=1/2] [cards=1] [region=inland] [currency=USD]`: what each option costs
• `help`: this text""",
    Lang.ZH: """*GPU 选型助手* — `/gpu-advise` 加上：
• _（空）_：在帖子里回答 5 个问题，可点按钮或直接用文字回复
• `form`：在一个表单里填写全部问题
• `10小时 mem=70/80 mp=否 freq=每天 resume=不能 [workload=lora] [phase=stable] [gpu=A100-80GB] [hours=4x14]`：一次给出全部回答
   键：`duration`/`dur`（或第一个词）、`mem`、`mp`、`freq`、`resume`、`workload`、`phase`、`gpu`、`hours`（每天小时数 x 天数）、`qps`、`p99`、`ckpt`、`size`、`cards`；也可用中文键：时长、显存、并行、频率、恢复、类型、阶段
• `prices [gpu]`：缓存的价格及来源、时效
• `quote gpu=A100 hours=4x14 [share=1/2] [cards=1] [region=inland] [currency=USD]`：各方案费用
• `help`：显示本说明""",
}
