#!/usr/bin/env python3
"""Independent near-duplicate test sets: `products` and `figures`.

Usage: python3 tests/quality/apart/build.py OUT.tsv

Writes `set<TAB>group<TAB>kind<TAB>text` rows (no header).  Rows sharing a
group are reposts of one item (must be called duplicates); rows of different
groups are different items (must not be).  Stdlib only; fully deterministic
(fixed seed, no dependence on hash order, time or locale).
"""
import datetime
import random
import re
import sys
import unicodedata
from collections import Counter

SEED = 20240611

# --------------------------------------------------------------------------
# Text helpers
# --------------------------------------------------------------------------
CJK = r"[\u3040-\u30ff\u3400-\u9fff\uff66-\uff9f]"

PREFIX = {
    "en": ["NEW! ", "Free shipping - ", "HOT SALE ", "[Official Store] ",
           "Best Seller: ", "Limited offer! "],
    "zh": ["【限时特惠】", "【官方正品】", "【包邮】", "【现货速发】", "【旗舰店】",
           "新品上市 "],
    "ja": ["★人気★", "【送料無料】", "【公式】", "【正規品】", "★新品★"],
}
SUFFIX = {
    "en": [" - Free Shipping", " | Fast Delivery", " (Genuine)", " NEW!"],
    "zh": [" 【顺丰包邮】", " 官方正品", " 正品保证", " 现货秒发"],
    "ja": [" 送料無料", " 新品", " ★翌日配送★"],
}
FIG_PREFIX = {"en": ["Re: ", "Fwd: ", "FW: "], "zh": ["转发：", "转：", "【转】"]}

AFFIXES_PRE = sorted({p for v in PREFIX.values() for p in v}
                     | {p for v in FIG_PREFIX.values() for p in v}, key=len, reverse=True)
AFFIXES_SUF = sorted({s for v in SUFFIX.values() for s in v}, key=len, reverse=True)


def fullwidth(s, digits=True, letters=False, punct=False):
    out = []
    for ch in s:
        if ((digits and "0" <= ch <= "9") or (letters and ch.isascii() and ch.isalpha())
                or (punct and "!" <= ch <= "~" and not ch.isalnum())):
            out.append(chr(ord(ch) + 0xFEE0))
        else:
            out.append(ch)
    return "".join(out)


def norm_key(text):
    """Self-check only: what a repost may change is removed here."""
    t = text
    changed = True
    while changed:
        changed = False
        for p in AFFIXES_PRE:
            if t.startswith(p):
                t, changed = t[len(p):], True
        for s in AFFIXES_SUF:
            if t.endswith(s):
                t, changed = t[: -len(s)], True
    t = unicodedata.normalize("NFKC", t).casefold()
    return "".join(ch for ch in t if ch.isalnum())


def clean(t):
    t = t.replace("\t", " ").replace("\n", " ").replace("\r", " ")
    return re.sub(r" {2,}", " ", t).strip()


# --------------------------------------------------------------------------
# Product repost operations (each changes only its own kind)
# --------------------------------------------------------------------------
def _bracket_last(t, seps, open_, close_):
    best = max((t.rfind(s), s) for s in seps)
    i, s = best
    if i < 0:
        return t
    return t[:i] + " " + open_ + t[i + len(s):] + close_


def punct_ops(lang):
    if lang == "en":
        return [
            lambda t: t.replace(", ", " "),
            lambda t: t.replace(", ", " / "),
            lambda t: t.replace(", ", " - "),
            lambda t: t.replace(" - ", ", "),
            lambda t: t.replace(" - ", " | "),
            lambda t: _bracket_last(t, [", ", " - "], "(", ")"),
            lambda t: _bracket_last(t, [", ", " - "], "[", "]"),
            lambda t: t.replace("'s ", "s "),
            lambda t: re.sub(r" \(([^)]*)\)", r", \1", t),
            lambda t: t.replace(", ", ",") + ".",
        ]
    ops = [
        lambda t: t.replace(" ", "/"),
        lambda t: t.replace(" ", " / "),
        lambda t: re.sub(rf"(?<={CJK}) | (?={CJK})", "", t),
        lambda t: _bracket_last(t, [" "], "（", "）"),
        lambda t: _bracket_last(t, [" "], "[", "]"),
    ]
    if lang == "zh":
        ops += [lambda t: t.replace(" ", "，"), lambda t: t.replace(" ", "、"),
                lambda t: t.replace(" ", " | ")]
    else:
        ops += [lambda t: t.replace(" ", "・"), lambda t: _bracket_last(t, [" "], "「", "」")]
    return ops


def _title(t):
    return " ".join(w[:1].upper() + w[1:].lower() for w in t.split(" "))


def case_ops(lang):
    if lang == "en":
        return [str.upper, str.lower, _title,
                lambda t: t[:1].upper() + t[1:].lower()]
    return [str.upper, str.lower,
            lambda t: re.sub(r"[A-Za-z]+", lambda m: m.group(0).title(), t)]


def fullwidth_ops(lang):
    ops = [lambda t: fullwidth(t, digits=True, letters=True),
           lambda t: fullwidth(t, digits=True, letters=False),
           lambda t: fullwidth(t, digits=True, letters=True, punct=True)]
    if lang == "en":
        ops.append(lambda t: fullwidth(t, digits=False, letters=True))
    return ops


def prefix_op(rng, lang, t):
    if rng.random() < 0.7:
        return rng.choice(PREFIX[lang]) + t
    return t + rng.choice(SUFFIX[lang])


def make_repost(rng, kind, lang, t, avoid):
    if kind == "prefix":
        for _ in range(20):
            r = prefix_op(rng, lang, t)
            if r not in avoid:
                return r
        raise AssertionError(t)
    ops = {"punctuation": punct_ops, "case": case_ops, "fullwidth": fullwidth_ops}[kind](lang)
    ops = ops[:]
    rng.shuffle(ops)
    for op in ops:
        r = clean(op(t))
        if r != t and r not in avoid and norm_key(r) == norm_key(t):
            return r
    raise AssertionError(f"no {kind} repost possible for {t!r}")


# --------------------------------------------------------------------------
# Product catalogue, written by hand.  Each category lists the slots that a
# variant may change; every format string contains every slot.
#   models: (brand, [generations / sibling models in order])
#   slots:  kind -> list of sub-pools (a base draws from one sub-pool and its
#           variant swaps to another value of the same sub-pool)
# --------------------------------------------------------------------------
EN_COLOURS = ["Black", "White", "Navy", "Grey", "Red", "Blue", "Olive Green", "Beige", "Brown"]
US_SHOE = ["US 7", "US 7.5", "US 8", "US 8.5", "US 9", "US 9.5", "US 10", "US 10.5", "US 11", "US 12"]
EU_SHOE = ["EU 39", "EU 40", "EU 41", "EU 42", "EU 43", "EU 44", "EU 45"]
LETTER = ["XS", "S", "M", "L", "XL", "XXL"]
G_EN = [["Men's", "Women's"]]
G_ZH = [["男士", "女士"], ["男款", "女款"]]
G_JA = [["メンズ", "レディース"]]

CATS = [
    # ---------------------------------------------------------------- English
    dict(lang="en", name="running shoes", n=7,
         fmts=["{gender} {brand} {model} running shoes{desc}, {colour}, size {size}",
               "{brand} {model} {gender} Road Running Shoe{desc} - {colour} - {size}"],
         models=[("Nike", ["Air Zoom Pegasus 38", "Air Zoom Pegasus 39", "Air Zoom Pegasus 40", "Pegasus 41"]),
                 ("Adidas", ["Ultraboost 21", "Ultraboost 22", "Ultraboost 23"]),
                 ("ASICS", ["Gel-Kayano 28", "Gel-Kayano 29", "Gel-Kayano 30"]),
                 ("Brooks", ["Ghost 14", "Ghost 15", "Ghost 16"]),
                 ("New Balance", ["Fresh Foam X 1080v12", "Fresh Foam X 1080v13"]),
                 ("Hoka", ["Clifton 8", "Clifton 9"]),
                 ("Saucony", ["Ride 15", "Ride 16", "Ride 17"])],
         slots=dict(gender=G_EN, colour=[["Black/White", "White", "Grey", "Navy", "Red", "Blue", "Black", "Volt"]],
                    size=[US_SHOE, EU_SHOE]),
         desc=["breathable mesh", "lightweight cushioning", "neutral support", "reflective details",
               "everyday trainer"]),
    dict(lang="en", name="smartphone", n=6,
         fmts=["{brand} {model} 5G {capacity} {colour}, {size} display, unlocked{desc}",
               "{brand} {model} ({capacity}, {colour}) {size} smartphone{desc}"],
         models=[("Apple", ["iPhone 12", "iPhone 13", "iPhone 14", "iPhone 15"]),
                 ("Samsung", ["Galaxy S21", "Galaxy S22", "Galaxy S23", "Galaxy S24"]),
                 ("Google", ["Pixel 6", "Pixel 7", "Pixel 8"]),
                 ("OnePlus", ["10 Pro", "11", "12"]),
                 ("Motorola", ["Edge 30", "Edge 40", "Edge 50"])],
         slots=dict(capacity=[["64GB", "128GB", "256GB", "512GB"]],
                    colour=[["Black", "Midnight", "Starlight", "Blue", "Green", "Purple", "Graphite", "Silver"]],
                    size=[["6.1-inch", "6.4-inch", "6.7-inch", "6.8-inch"]]),
         desc=["dual SIM", "eSIM", "international version", "with fast charger"]),
    dict(lang="en", name="laptop", n=6,
         fmts=["{brand} {model} {size} laptop, 16GB RAM, {capacity} SSD, {colour}{desc}",
               "{brand} {model} {size} Notebook - 16GB / {capacity} SSD - {colour}{desc}"],
         models=[("Apple", ["MacBook Air M1", "MacBook Air M2", "MacBook Air M3"]),
                 ("Dell", ["Inspiron 5420", "Inspiron 5430", "Inspiron 5440"]),
                 ("Lenovo", ["ThinkPad X1 Carbon Gen 10", "ThinkPad X1 Carbon Gen 11", "ThinkPad X1 Carbon Gen 12"]),
                 ("HP", ["Pavilion Plus 2022", "Pavilion Plus 2023"]),
                 ("ASUS", ["Zenbook UX3402", "Zenbook UX3405"]),
                 ("Acer", ["Swift Go SFG14-71", "Swift Go SFG14-72"])],
         slots=dict(size=[["13.3-inch", "14-inch", "15.6-inch", "16-inch"]],
                    capacity=[["256GB", "512GB", "1TB", "2TB"]],
                    colour=[["Silver", "Space Grey", "Midnight", "Black", "Blue", "Starlight"]]),
         desc=["backlit keyboard", "Wi-Fi 6", "fingerprint reader", "thin and light"]),
    dict(lang="en", name="tablet", n=5,
         fmts=["{brand} {model} {size} Wi-Fi tablet, {capacity}, {colour}{desc}",
               "{brand} {model} ({size}, Wi-Fi, {capacity}) - {colour}{desc}"],
         models=[("Apple", ["iPad Air 4th generation", "iPad Air 5th generation", "iPad Air 6th generation"]),
                 ("Samsung", ["Galaxy Tab S7", "Galaxy Tab S8", "Galaxy Tab S9"]),
                 ("Lenovo", ["Tab P11", "Tab P12"]),
                 ("Xiaomi", ["Pad 5", "Pad 6"])],
         slots=dict(size=[["10.9-inch", "11-inch", "12.4-inch", "12.9-inch"]],
                    capacity=[["64GB", "128GB", "256GB"]],
                    colour=[["Space Grey", "Silver", "Blue", "Pink", "Graphite", "Mint"]]),
         desc=["with stylus support", "keyboard compatible"]),
    dict(lang="en", name="smartwatch", n=6,
         fmts=["{brand} {model} {gender} GPS smartwatch, {size} case, {colour} band{desc}",
               "{gender} {brand} {model} Smart Watch{desc} - {size} - {colour}"],
         models=[("Garmin", ["Forerunner 245", "Forerunner 255", "Forerunner 265"]),
                 ("Fitbit", ["Versa 2", "Versa 3", "Versa 4"]),
                 ("Samsung", ["Galaxy Watch4", "Galaxy Watch5", "Galaxy Watch6"]),
                 ("Amazfit", ["GTR 3", "GTR 4"]),
                 ("Huawei", ["Watch GT 3", "Watch GT 4"])],
         slots=dict(gender=G_EN, size=[["40mm", "41mm", "42mm", "44mm", "45mm", "46mm"]],
                    colour=[["Black", "Silver", "Rose Gold", "Midnight Blue", "Olive", "White"]]),
         desc=["heart rate monitor", "sleep tracking", "water resistant", "AMOLED display"]),
    dict(lang="en", name="jacket", n=7,
         fmts=["{brand} {gender} {model} jacket{desc}, {colour}, size {size}",
               "{brand} {model} {gender} Insulated Jacket - {colour} - {size}{desc}"],
         models=[("Patagonia", ["Nano Puff", "Micro Puff", "Down Sweater"]),
                 ("Arc'teryx", ["Atom LT", "Atom SL", "Atom Heavyweight"]),
                 ("Columbia", ["Powder Lite", "Delta Ridge", "Pike Lake"]),
                 ("Uniqlo", ["Ultra Light Down", "Seamless Down"]),
                 ("Helly Hansen", ["Banff Insulator", "Crew Insulator 2.0"])],
         slots=dict(gender=G_EN, size=[LETTER],
                    colour=[["Black", "Navy", "Olive Green", "Red", "Grey", "Blue", "Beige"]]),
         desc=["water repellent", "packable", "hooded", "recycled down", "windproof"]),
    dict(lang="en", name="jeans", n=6,
         fmts=["{brand} {gender} {model} jeans{desc}, {colour}, {size}",
               "{gender} {brand} {model} Denim Jeans - {colour} - {size}{desc}"],
         models=[("Levi's", ["501 Original Fit", "505 Regular Fit", "511 Slim Fit", "514 Straight Fit"]),
                 ("Wrangler", ["Cowboy Cut", "Retro Slim"]),
                 ("Lee", ["Extreme Motion", "Legendary Regular"]),
                 ("G-Star RAW", ["3301 Straight", "3301 Slim"])],
         slots=dict(gender=G_EN, size=[["W30 L30", "W30 L32", "W32 L32", "W34 L32", "W36 L32", "W38 L34"]],
                    colour=[["Dark Stonewash", "Light Blue", "Black", "Indigo", "Medium Wash", "Grey"]]),
         desc=["stretch", "mid rise", "organic cotton"]),
    dict(lang="en", name="backpack", n=6,
         fmts=["{brand} {model} {capacity} {gender} hiking backpack, {colour}, size {size}{desc}",
               "{gender} {brand} {model} {capacity} Daypack{desc} - {colour} - {size}"],
         models=[("Osprey", ["Talon", "Stratos"]), ("Deuter", ["Futura", "Futura Pro"]),
                 ("Gregory", ["Zulu", "Citro"]), ("Mammut", ["Lithium", "Ducan"]),
                 ("Black Diamond", ["Distance", "Pursuit"])],
         slots=dict(capacity=[["22L", "24L", "26L", "30L", "33L", "36L"]], gender=G_EN,
                    size=[["S/M", "M/L", "L/XL"]],
                    colour=[["Black", "Eclipse Grey", "Forest Green", "Blue", "Orange", "Red"]]),
         desc=["rain cover included", "hydration compatible", "ventilated back panel"]),
    dict(lang="en", name="helmet", n=5,
         fmts=["{brand} {model} MIPS {gender} road bike helmet, {colour}, size {size}{desc}",
               "{gender} {brand} {model} Cycling Helmet (MIPS) - {colour} - {size}{desc}"],
         models=[("Giro", ["Syntax", "Aether", "Agilis"]), ("POC", ["Ventral Air", "Omne Air"]),
                 ("Kask", ["Protone", "Valegro"]), ("Bell", ["Falcon XR", "Formula"])],
         slots=dict(gender=G_EN, size=[["S", "M", "L"]],
                    colour=[["Matte Black", "White", "Red", "Blue", "Grey", "Yellow"]]),
         desc=["lightweight", "ventilated"]),
    dict(lang="en", name="sunglasses", n=6,
         fmts=["{brand} {model} {gender} polarized sunglasses, {colour}, {size} lens{desc}",
               "{gender} {brand} {model} Sunglasses - {colour} frame - {size}{desc}"],
         models=[("Ray-Ban", ["RB2140 Wayfarer", "RB3025 Aviator", "RB4165 Justin"]),
                 ("Oakley", ["Holbrook", "Frogskins", "Radar EV"]),
                 ("Maui Jim", ["Peahi", "Red Sands"]), ("Costa", ["Fantail", "Blackfin"])],
         slots=dict(gender=G_EN, size=[["50mm", "52mm", "54mm", "55mm", "58mm", "62mm"]],
                    colour=[["Black", "Tortoise", "Gold", "Gunmetal", "Crystal Brown", "Blue Mirror"]]),
         desc=["UV400 protection", "with case"]),
    dict(lang="en", name="hiking boots", n=6,
         fmts=["{brand} {gender} {model} waterproof hiking boots, {colour}, size {size}{desc}",
               "{brand} {model} {gender} Hiking Boot{desc} - {colour} - {size}"],
         models=[("Merrell", ["Moab 2 Mid", "Moab 3 Mid"]),
                 ("Salomon", ["X Ultra 3 Mid GTX", "X Ultra 4 Mid GTX"]),
                 ("KEEN", ["Targhee II", "Targhee III"]),
                 ("Lowa", ["Renegade GTX Mid", "Renegade EVO GTX Mid"])],
         slots=dict(gender=G_EN, size=[US_SHOE],
                    colour=[["Brown", "Black", "Walnut", "Grey", "Olive", "Dark Earth"]]),
         desc=["Vibram sole", "leather upper", "wide toe box"]),
    dict(lang="en", name="watch", n=6,
         fmts=["{brand} {model} {gender} automatic watch, {size} stainless steel case, {colour} dial{desc}",
               "{gender} {brand} {model} Watch{desc} - {colour} Dial - {size}"],
         models=[("Seiko", ["5 Sports SRPD55", "5 Sports SRPD51", "5 Sports SRPK89"]),
                 ("Tissot", ["PRX Powermatic 80", "Gentleman Powermatic 80"]),
                 ("Orient", ["Bambino Version 2", "Bambino Version 3"]),
                 ("Hamilton", ["Khaki Field Mechanical", "Khaki Field Auto"]),
                 ("Citizen", ["Tsuyosa", "Fugu"])],
         slots=dict(gender=G_EN, size=[["35mm", "38mm", "39mm", "40mm", "41mm", "42mm"]],
                    colour=[["Black", "Blue", "Green", "Silver", "White", "Champagne"]]),
         desc=["sapphire crystal", "100m water resistance", "leather strap"]),
    dict(lang="en", name="bike", n=6,
         fmts=["{brand} {model} {gender} hybrid bike, {size} frame, {colour}{desc}",
               "{brand} {model} Hybrid Bicycle ({gender}){desc} - {colour} - Size {size}"],
         models=[("Trek", ["FX 2", "FX 3", "FX 3 Disc"]), ("Giant", ["Escape 2", "Escape 3"]),
                 ("Specialized", ["Sirrus 2.0", "Sirrus 3.0"]), ("Cannondale", ["Quick 4", "Quick 5"]),
                 ("Marin", ["Fairfax 1", "Fairfax 2"])],
         slots=dict(gender=G_EN, size=[["XS", "S", "M", "L", "XL"]],
                    colour=[["Matte Black", "Gloss White", "Dark Blue", "Olive", "Red", "Silver"]]),
         desc=["hydraulic disc brakes", "aluminium frame", "700c wheels"]),
    dict(lang="en", name="hoodie", n=6,
         fmts=["{brand} {gender} {model} hoodie, {colour}, {size}{desc}",
               "{gender} {brand} {model} Pullover Hoodie{desc} - {colour} - Size {size}"],
         models=[("Champion", ["Reverse Weave", "Powerblend"]), ("Nike", ["Club Fleece", "Tech Fleece"]),
                 ("Adidas", ["Essentials 3-Stripes", "Adicolor Trefoil"]),
                 ("Gildan", ["Heavy Blend", "Softstyle"])],
         slots=dict(gender=G_EN, size=[LETTER],
                    colour=[["Black", "Oxford Grey", "Navy", "Maroon", "Forest Green", "White"]]),
         desc=["cotton blend", "kangaroo pocket", "relaxed fit"]),
    # ---------------------------------------------------------------- Chinese
    dict(lang="zh", name="跑步鞋", n=7,
         fmts=["{brand} {gender}{model}跑步鞋{desc} {colour} {size}码",
               "{brand}{model} {gender}运动鞋 {colour}{desc} {size}码"],
         models=[("LI-NING李宁", ["赤兔5 PRO", "赤兔6 PRO", "赤兔7 PRO"]),
                 ("ANTA安踏", ["C202 4代", "C202 5代", "C202 6代"]),
                 ("XTEP特步", ["160X 3.0", "160X 5.0", "160X 6.0"]),
                 ("Nike耐克", ["Pegasus 39", "Pegasus 40"]),
                 ("Adidas阿迪达斯", ["Adizero Boston 11", "Adizero Boston 12"])],
         slots=dict(gender=G_ZH, size=[["38", "39", "40", "41", "42", "43", "44"]],
                    colour=[["黑色", "白色", "黑白", "灰色", "蓝色", "红色", "荧光绿"]]),
         desc=["透气网面", "轻便减震", "防滑耐磨", "2024新款", "专业竞速"]),
    dict(lang="zh", name="手机", n=6,
         fmts=["{brand}{model} 5G手机 {capacity} {colour}{desc} {size}英寸屏",
               "{brand} {model} {colour} {capacity} 全网通5G 智能手机 {size}英寸{desc}"],
         models=[("Xiaomi小米", ["12", "13", "14"]),
                 ("HUAWEI华为", ["Mate 40 Pro", "Mate 50 Pro", "Mate 60 Pro"]),
                 ("OPPO", ["Reno8", "Reno9", "Reno10"]), ("vivo", ["X80", "X90", "X100"]),
                 ("HONOR荣耀", ["Magic4", "Magic5", "Magic6"])],
         slots=dict(capacity=[["8GB+128GB", "8GB+256GB", "12GB+256GB", "12GB+512GB", "16GB+1TB"]],
                    colour=[["曜石黑", "白色", "远峰蓝", "雪域白", "晴空蓝", "紫色", "原野绿"]],
                    size=[["6.36", "6.43", "6.67", "6.73", "6.78"]]),
         desc=["官方标配", "双卡双待", "超级快充", "拍照手机"]),
    dict(lang="zh", name="笔记本", n=6,
         fmts=["{brand}{model} {size}英寸轻薄笔记本电脑 16GB {capacity}固态 {colour}{desc}",
               "{brand} {model} 笔记本电脑{desc} {size}英寸 16GB内存 {capacity} {colour}"],
         models=[("Lenovo联想", ["ThinkPad X1 Carbon Gen10", "ThinkPad X1 Carbon Gen11"]),
                 ("HUAWEI华为", ["MateBook D 2022款", "MateBook D 2023款"]),
                 ("Apple", ["MacBook Air M2", "MacBook Air M3"]),
                 ("ASUS华硕", ["无畏Pro 2022", "无畏Pro 2023"]),
                 ("DELL戴尔", ["灵越5420", "灵越5430"]),
                 ("Xiaomi小米", ["RedmiBook Pro 2022", "RedmiBook Pro 2023"])],
         slots=dict(size=[["13.3", "14", "15.6", "16"]], capacity=[["512GB", "1TB", "2TB"]],
                    colour=[["银色", "深空灰", "午夜色", "星光色", "灰色", "蓝色"]]),
         desc=["高色域", "办公", "学生", "商务"]),
    dict(lang="zh", name="智能手表", n=6,
         fmts=["{brand}{model} {gender}智能手表 {size} {colour}{desc}",
               "{brand} {model} 智能运动手表 {gender} {colour} {size}表盘{desc}"],
         models=[("HUAWEI华为", ["WATCH GT 3", "WATCH GT 4"]), ("Apple", ["Watch Series 8", "Watch Series 9"]),
                 ("Garmin佳明", ["Forerunner 255", "Forerunner 265"]), ("Amazfit", ["GTR 3", "GTR 4"]),
                 ("OPPO", ["Watch 3", "Watch 4 Pro"])],
         slots=dict(gender=G_ZH, size=[["41mm", "42mm", "45mm", "46mm"]],
                    colour=[["黑色", "银色", "曜石黑", "星光色", "玫瑰金", "浅绿色"]]),
         desc=["运动心率血氧监测", "NFC", "蓝牙通话", "长续航", "防水"]),
    dict(lang="zh", name="手环", n=4,
         fmts=["{brand}{model} NFC版 {colour} {gender} 腕带{size}码{desc}",
               "{brand} {model} 运动手环 {gender}{desc} {colour} 腕带{size}码"],
         models=[("Xiaomi小米", ["手环6", "手环7", "手环8"]), ("HUAWEI华为", ["手环7", "手环8", "手环9"]),
                 ("HONOR荣耀", ["手环6", "手环7"])],
         slots=dict(gender=G_ZH, size=[["S", "M", "L"]],
                    colour=[["黑色", "白色", "薄荷绿", "樱花粉", "星空蓝"]]),
         desc=["心率血氧监测", "睡眠监测", "50米防水"]),
    dict(lang="zh", name="羽绒服", n=6,
         fmts=["{brand} {gender}羽绒服 {model}{desc} {colour} {size}",
               "{brand}{gender}{model}羽绒外套 {colour}{desc} 尺码{size}"],
         models=[("BOSIDENG波司登", ["2022冬季新款", "2023冬季新款", "2024冬季新款"]),
                 ("UNIQLO优衣库", ["轻型羽绒茄克", "高级轻型羽绒茄克"]),
                 ("The North Face北面", ["1996 Nuptse", "700 Nuptse"]),
                 ("YAYA鸭鸭", ["2023款", "2024款"]),
                 ("Canada Goose加拿大鹅", ["Langford派克", "Chilliwack飞行员"])],
         slots=dict(gender=G_ZH, size=[["S", "M", "L", "XL", "XXL"], ["170/88A", "175/92A", "180/96A", "185/100A"]],
                    colour=[["黑色", "藏青色", "卡其色", "米白色", "军绿色", "酒红色"]]),
         desc=["连帽", "90%白鸭绒", "加厚保暖", "防风防泼水"]),
    dict(lang="zh", name="牛仔裤", n=6,
         fmts=["{brand} {gender} {model}牛仔裤 {colour}{desc} {size}码",
               "{brand}{gender}{model}牛仔长裤{desc} {colour} 尺码{size}"],
         models=[("Levi's李维斯", ["501经典直筒", "505宽松直筒", "511修身小脚", "512锥形"]),
                 ("Lee", ["705修身", "712直筒"]), ("UNIQLO优衣库", ["弹力修身", "宽腿"]),
                 ("JACK&JONES杰克琼斯", ["修身", "直筒"])],
         slots=dict(gender=G_ZH, size=[["28", "29", "30", "31", "32", "33", "34", "36"]],
                    colour=[["深蓝色", "浅蓝色", "黑色", "烟灰色", "复古蓝"]]),
         desc=["弹力", "水洗做旧", "九分", "高腰", "春秋款"]),
    dict(lang="zh", name="保温杯", n=6,
         fmts=["{brand} {gender}保温杯 {model} {capacity}{desc} {colour}",
               "{brand}{model}不锈钢保温杯 {capacity} {colour} {gender}款{desc}"],
         models=[("THERMOS膳魔师", ["JNL-502", "JNL-504", "JNL-506"]),
                 ("ZOJIRUSHI象印", ["SM-SA", "SM-SF", "SM-ZB"]),
                 ("TIGER虎牌", ["MMJ-A", "MMJ-C"]), ("LOCK&LOCK乐扣乐扣", ["LHC4131", "LHC4151"]),
                 ("SUPOR苏泊尔", ["KC50AT1", "KC50BT1"])],
         slots=dict(gender=[["男士", "女士"]], capacity=[["350ml", "480ml", "500ml", "600ml", "750ml"]],
                    colour=[["黑色", "白色", "樱花粉", "雾蓝色", "不锈钢原色", "橄榄绿"]]),
         desc=["316不锈钢", "真空长效保温", "便携", "商务"]),
    dict(lang="zh", name="双肩包", n=6,
         fmts=["{brand} {gender}双肩包 {model} {capacity} 可放{size}英寸电脑 {colour}{desc}",
               "{brand}{model} {gender}电脑背包 {size}英寸 {colour}{desc} 容量{capacity}"],
         models=[("Samsonite新秀丽", ["TQ5", "TX6", "NH1"]), ("TUMI途明", ["Alpha Bravo", "Alpha 3"]),
                 ("The North Face北面", ["Borealis", "Jester"]), ("DEUTER多特", ["Futura", "Trail"])],
         slots=dict(gender=G_ZH, capacity=[["18L", "20L", "25L", "30L", "35L"]],
                    size=[["14", "15.6", "16", "17"]],
                    colour=[["黑色", "深灰色", "藏蓝色", "卡其色", "灰色"]]),
         desc=["防泼水", "商务通勤", "USB充电口", "轻便"]),
    dict(lang="zh", name="行李箱", n=5,
         fmts=["{brand} {model}拉杆箱 {gender} {size}寸{desc} {colour}",
               "{brand}{model} {gender}旅行箱 {colour} {size}英寸{desc}"],
         models=[("Samsonite新秀丽", ["Cosmolite", "Proxis"]), ("RIMOWA日默瓦", ["Essential", "Essential Lite"]),
                 ("American Tourister美旅", ["TV7", "BE4"]), ("Xiaomi小米", ["90分旅行箱", "90分旅行箱2代"])],
         slots=dict(gender=[["男士", "女士"]], size=[["20", "22", "24", "26", "28"]],
                    colour=[["黑色", "银色", "香槟金", "雾霾蓝", "樱花粉"]]),
         desc=["万向轮", "TSA海关锁", "PC材质", "静音"]),
    dict(lang="zh", name="速干T恤", n=6,
         fmts=["{brand} {gender}运动速干T恤 {model}{desc} {colour} {size}码",
               "{brand}{model} {gender}短袖T恤{desc} {colour} 尺码{size}"],
         models=[("DECATHLON迪卡侬", ["KIPRUN 500", "KIPRUN 900"]),
                 ("Nike耐克", ["Dri-FIT Miler", "Dri-FIT Rise 365"]),
                 ("ANTA安踏", ["冰丝系列", "吸湿速干系列"]), ("LI-NING李宁", ["训练系列", "跑步系列"]),
                 ("Under Armour安德玛", ["Tech 2.0", "Streaker"])],
         slots=dict(gender=G_ZH, size=[["S", "M", "L", "XL", "XXL", "3XL"]],
                    colour=[["黑色", "白色", "深灰", "藏青", "荧光黄", "宝蓝色"]]),
         desc=["圆领", "透气", "跑步健身", "夏季"]),
    dict(lang="zh", name="自行车", n=6,
         fmts=["{brand} {model} {gender}山地自行车 27.5寸{desc} {colour} {size}码车架",
               "{brand}{model}山地车 {gender}款 {colour}{desc} 车架{size}码"],
         models=[("GIANT捷安特", ["ATX 660", "ATX 760", "ATX 860"]), ("MERIDA美利达", ["勇士500", "勇士600"]),
                 ("TREK崔克", ["Marlin 5", "Marlin 6", "Marlin 7"]), ("XDS喜德盛", ["逐日500", "逐日600"])],
         slots=dict(gender=[["男士", "女士"]], size=[["XS", "S", "M", "L"]],
                    colour=[["黑蓝色", "哑光黑", "白红色", "钛灰色", "橄榄绿"]]),
         desc=["禧玛诺变速", "油压碟刹", "铝合金车架", "锁死前叉"]),
    dict(lang="zh", name="手表", n=6,
         fmts=["{brand} {model} {gender}手表 {size}{desc} {colour}表盘",
               "{brand}{model} {colour}盘 {gender}腕表{desc} 表径{size}"],
         models=[("CASIO卡西欧", ["G-SHOCK GA-2100", "G-SHOCK GA-2110"]),
                 ("SEIKO精工", ["5号 SRPD55", "5号 SRPD63"]), ("TISSOT天梭", ["PRX超级玩家", "力洛克"]),
                 ("CITIZEN西铁城", ["光动能 BM7108", "光动能 BM7251"]), ("Fossil化石", ["Neutra", "Machine"])],
         slots=dict(gender=G_ZH, size=[["35mm", "38mm", "40mm", "42mm", "45mm"]],
                    colour=[["黑色", "蓝色", "绿色", "白色", "银色"]]),
         desc=["防水", "机械表", "夜光", "钢带"]),
    dict(lang="zh", name="平板", n=5,
         fmts=["{brand} {model} {size}英寸平板电脑 WLAN版 {capacity} {colour}{desc}",
               "{brand}{model}平板{desc} {colour} {capacity} {size}英寸"],
         models=[("Apple", ["iPad Air 第4代", "iPad Air 第5代", "iPad Air 第6代"]),
                 ("HUAWEI华为", ["MatePad Air", "MatePad Pro"]), ("Xiaomi小米", ["Pad 5", "Pad 6"]),
                 ("Lenovo联想", ["小新Pad Pro 2022", "小新Pad Pro 2023"])],
         slots=dict(size=[["10.9", "11", "11.5", "12.4", "12.9"]],
                    capacity=[["64GB", "128GB", "256GB", "512GB"]],
                    colour=[["深空灰色", "星光色", "紫色", "蓝色", "银色", "曜石黑"]]),
         desc=["学习", "办公", "护眼"]),
    dict(lang="zh", name="登山鞋", n=6,
         fmts=["{brand} {gender}登山鞋 {model} 防水防滑徒步鞋{desc} {colour} {size}码",
               "{brand}{model} {gender}户外徒步鞋 {colour}{desc} {size}码"],
         models=[("Merrell迈乐", ["MOAB 2", "MOAB 3"]), ("KAILAS凯乐石", ["MT5-3", "MT5-4"]),
                 ("Salomon萨洛蒙", ["X ULTRA 3", "X ULTRA 4"]),
                 ("Columbia哥伦比亚", ["Newton Ridge", "Peakfreak"]), ("CAMEL骆驼", ["F13A", "F14A"])],
         slots=dict(gender=G_ZH, size=[["38", "39", "40", "41", "42", "43", "44"]],
                    colour=[["棕色", "黑色", "卡其色", "灰色", "军绿色"]]),
         desc=["耐磨", "透气", "减震", "秋冬"]),
    # ---------------------------------------------------------------- Japanese
    dict(lang="ja", name="シューズ", n=4,
         fmts=["{brand} {model} {gender} ランニングシューズ {colour} {size}{desc}"],
         models=[("ナイキ NIKE", ["ペガサス 39", "ペガサス 40"]),
                 ("アシックス ASICS", ["GEL-KAYANO 29", "GEL-KAYANO 30"]),
                 ("ミズノ MIZUNO", ["ウエーブライダー 26", "ウエーブライダー 27"])],
         slots=dict(gender=G_JA, size=[["25.0cm", "25.5cm", "26.0cm", "26.5cm", "27.0cm", "27.5cm", "28.0cm"]],
                    colour=[["ブラック", "ホワイト", "ネイビー", "グレー", "レッド"]]),
         desc=["軽量", "クッション性", "通気性"]),
    dict(lang="ja", name="スマホ", n=3,
         fmts=["{brand} {model} {capacity} {colour} SIMフリー {size}インチ{desc}"],
         models=[("Apple", ["iPhone 13", "iPhone 14", "iPhone 15"]), ("Google", ["Pixel 7", "Pixel 8"]),
                 ("SONY ソニー", ["Xperia 5 IV", "Xperia 5 V"])],
         slots=dict(capacity=[["128GB", "256GB", "512GB"]],
                    colour=[["ブラック", "ホワイト", "ブルー", "ミッドナイト", "パープル"]],
                    size=[["6.1", "6.2", "6.7"]]),
         desc=["本体", "国内版"]),
    dict(lang="ja", name="腕時計", n=3,
         fmts=["{brand} {model} {gender} 腕時計 {size} {colour}{desc}"],
         models=[("カシオ CASIO", ["G-SHOCK GA-2100", "G-SHOCK GA-B2100"]),
                 ("セイコー SEIKO", ["プレザージュ SARY", "プロスペックス SBDC"]),
                 ("シチズン CITIZEN", ["アテッサ", "エクシード"])],
         slots=dict(gender=G_JA, size=[["38mm", "40mm", "42mm", "45mm"]],
                    colour=[["ブラック", "シルバー", "ネイビー", "グリーン"]]),
         desc=["防水", "ソーラー"]),
    dict(lang="ja", name="ダウン", n=3,
         fmts=["ユニクロ UNIQLO {gender} {brand}{model} {colour} {size}サイズ{desc}"],
         models=[("", ["ウルトラライトダウンジャケット", "シームレスダウンパーカ"]),
                 ("2023年モデル ", ["ウルトラライトダウンベスト", "ウルトラライトダウンコート"])],
         slots=dict(gender=G_JA, size=[["S", "M", "L", "XL"]],
                    colour=[["ブラック", "ネイビー", "ベージュ", "オリーブ"]]),
         desc=["軽量", "撥水"]),
]

REPOST_KINDS = ["punctuation", "case", "prefix", "fullwidth"]


def render(cat, vals, descs, fmt):
    if cat["lang"] != "en" and vals["brand"][-1:].isascii() and vals["brand"][-1:].isalnum():
        vals = dict(vals, brand=vals["brand"] + " ")  # "OPPO Reno8", not "OPPOReno8"
    if descs:
        d = (", " + ", ".join(descs)) if cat["lang"] == "en" else (" " + " ".join(descs))
    else:
        d = ""
    return clean(fmt.format(desc=d, **vals))


def gen_products(rng, used_keys):
    rows = []
    idents = set()
    pid = 0
    for cat in CATS:
        kinds = ["model"] + list(cat["slots"])
        for fmt in cat["fmts"]:
            for k in ["brand"] + kinds:
                assert "{" + k + "}" in fmt, (cat["name"], fmt, k)
        made = tries = 0
        while made < cat["n"]:
            tries += 1
            assert tries < 5000, cat["name"]
            brand, line = rng.choice(cat["models"])
            gi = rng.randrange(len(line))
            vals = {"brand": brand, "model": line[gi]}
            pools = {}
            for k, sub in cat["slots"].items():
                pools[k] = rng.choice(sub)
                vals[k] = rng.choice(pools[k])
            descs = rng.sample(cat["desc"], min(len(cat["desc"]), rng.choice([0, 1, 1, 2, 2, 3])))
            fmt = rng.choice(cat["fmts"])
            variants = []
            for k in kinds:
                v = dict(vals)
                if k == "model":
                    v["model"] = line[gi + 1] if gi + 1 < len(line) else line[gi - 1]
                else:
                    v[k] = rng.choice([x for x in pools[k] if x != vals[k]])
                variants.append((k, v))
            if rng.random() < 0.3:  # a second variant of colour or size
                k = rng.choice([x for x in ("colour", "size") if x in pools])
                taken = {vals[k]} | {v[k] for kk, v in variants if kk == k}
                rest = [x for x in pools[k] if x not in taken]
                if rest:
                    v = dict(vals)
                    v[k] = rng.choice(rest)
                    variants.append((k, v))
            items = [("base", vals)] + [("variant:" + k, v) for k, v in variants]
            ids = [(cat["name"], tuple(sorted(v.items()))) for _, v in items]
            texts = [render(cat, v, descs, fmt) for _, v in items]
            keys = [norm_key(t) for t in texts]
            if (len(set(ids)) != len(ids) or any(i in idents for i in ids)
                    or len(set(keys)) != len(keys) or any(k in used_keys for k in keys)
                    or any(not 15 <= len(t) <= 100 for t in texts)):
                continue
            idents.update(ids)
            used_keys.update(keys)
            pid += 1
            made += 1
            for j, ((kind, _), text) in enumerate(zip(items, texts)):
                group = f"P{pid:03d}" if j == 0 else f"P{pid:03d}-v{j}"
                rows.append(("products", group, kind, text))
                seen = {text}
                reposts = list(REPOST_KINDS)
                if rng.random() < 0.2:
                    reposts.append(rng.choice(REPOST_KINDS))
                for n, rk in enumerate(reposts):
                    try:
                        r = make_repost(rng, rk, cat["lang"], text, seen)
                    except AssertionError:
                        if n < len(REPOST_KINDS):
                            raise
                        continue  # the optional extra repost has no other form

                    seen.add(r)
                    rows.append(("products", group, "repost:" + rk, r))
    return rows


# --------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------
EN_CUSTOMERS = ["Harbor Logistics Ltd.", "Northwind Traders", "Bluestone Dental Clinic",
                "Greenfield Primary School", "Apex Engineering LLC", "Riverside Cafe",
                "Summit Realty Group", "Oakwood Veterinary Practice", "Pioneer Freight Inc.",
                "Meridian Accounting", "Lakeside Hotel", "Crescent Print Shop",
                "Redwood Architecture", "Silverline Fitness", "Maple Street Bakery"]
EN_ITEMS = [("A4 copy paper 80gsm, box of 5 reams", 38.50), ("Toner cartridge 26A, black", 89.90),
            ("Ergonomic office chair", 219.00), ("USB-C docking station", 145.00),
            ("27-inch LED monitor", 189.99), ("Wireless keyboard and mouse set", 49.95),
            ("Stainless steel water bottle 750ml", 12.40), ("Nitrile gloves, box of 100", 9.80),
            ("LED panel light 600x600 40W", 27.50), ("Cat6 patch cable 2m", 3.20),
            ("Pallet wrap film 500mm x 300m", 18.75), ("Hi-vis safety vest", 6.90),
            ("Aluminium laptop stand", 34.00), ("Whiteboard markers, pack of 12", 11.60),
            ("Thermal receipt rolls, box of 50", 29.90), ("Hand sanitiser 5L", 21.30),
            ("Shipping boxes 40x30x30cm, bundle of 25", 31.25), ("Coffee beans 1kg", 24.50),
            ("External SSD 1TB", 109.00), ("Desk lamp with USB port", 42.00)]
ZH_CUSTOMERS = ["上海恒远物流有限公司", "北京智联创新科技有限公司", "广州市博雅教育培训中心",
                "深圳市华启电子有限公司", "杭州云栖餐饮管理有限公司", "成都锦程建筑工程有限公司",
                "武汉光谷生物医药有限公司", "南京秦淮文化传媒有限公司", "苏州晨星精密机械有限公司",
                "重庆山城汽车配件有限公司", "西安古都旅游服务有限公司", "天津海川贸易有限公司"]
ZH_ITEMS = [("*纸制品*A4复印纸", "80g 500张/包", "箱", 128.00, 13),
            ("*计算机外部设备*无线键鼠套装", "MK275", "套", 89.00, 13),
            ("*办公设备*激光打印机", "M1136", "台", 1299.00, 13),
            ("*日用杂品*抽纸", "3层120抽", "提", 36.50, 13),
            ("*饮料*瓶装饮用水", "550ml×24", "箱", 28.00, 13),
            ("*家具*人体工学办公椅", "T01", "把", 699.00, 13),
            ("*照明装置*LED灯管", "T8 1.2米 18W", "支", 15.80, 13),
            ("*劳保用品*丁腈防护手套", "100只/盒", "盒", 42.00, 13),
            ("*印刷品*宣传册印刷", "A4 16页", "本", 6.20, 13),
            ("*通信设备*无线路由器", "AX3000", "台", 259.00, 13),
            ("*焙烤食品*月饼礼盒", "520g", "盒", 168.00, 13),
            ("*清洁用品*洗手液", "500ml", "瓶", 18.90, 13),
            ("*计算机*笔记本电脑", "14英寸 16G 512G", "台", 4999.00, 13),
            ("*文具*中性笔", "0.5mm 12支/盒", "盒", 14.40, 13),
            ("*信息技术服务*软件维护服务费", "年度", "项", 3000.00, 6),
            ("*现代服务*会议服务费", "全天", "场", 2800.00, 6)]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def _qty(rng):
    return rng.choice([1, 1, 2, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 24, 25, 30, 40, 50, 60, 100, 120, 200])


def gen_invoices(rng):
    out = []
    d = datetime.date(2023, 1, 3)
    no = 417
    for _ in range(250):
        d += datetime.timedelta(days=rng.choice([0, 1, 1, 1, 2]))
        no += rng.choice([1, 1, 2, 3])
        item, base = rng.choice(EN_ITEMS)
        unit = round(base * rng.choice([0.95, 1, 1, 1, 1.05, 1.1]), 2)
        qty = _qty(rng)
        cust = rng.choice(EN_CUSTOMERS)
        rate = 8.25 if EN_CUSTOMERS.index(cust) % 3 == 0 else 7.5
        sub = round(unit * qty, 2)
        tax = round(sub * rate / 100, 2)
        terms = rng.choice([14, 30, 30, 45])
        due = d + datetime.timedelta(days=terms)
        fd = lambda x: f"{x.day} {MONTHS[x.month - 1]} {x.year}"
        out.append(("en", f"Invoice INV-2023-{no:05d} | Date: {fd(d)} | Bill to: {cust} | Item: {item} | "
                          f"Qty: {qty} | Unit price: USD {unit:,.2f} | Subtotal: USD {sub:,.2f} | "
                          f"Sales tax {rate}%: USD {tax:,.2f} | Total: USD {sub + tax:,.2f} | "
                          f"Due: {fd(due)} (net {terms})"))
    d = datetime.date(2023, 1, 4)
    no = 4417832
    for _ in range(250):
        d += datetime.timedelta(days=rng.choice([0, 1, 1, 1, 2]))
        no += rng.choice([1, 2, 3, 5, 7])
        item, spec, unit_name, base, rate = rng.choice(ZH_ITEMS)
        price = round(base * rng.choice([0.9, 0.95, 1, 1, 1, 1.05]), 2)
        qty = _qty(rng) if rate == 13 else rng.choice([1, 1, 1, 2, 3])
        amt = round(price * qty, 2)
        tax = round(amt * rate / 100, 2)
        cust = rng.choice(ZH_CUSTOMERS)
        out.append(("zh", f"增值税电子普通发票 发票号码：{no:08d} 开票日期：{d.year}年{d.month:02d}月{d.day:02d}日 "
                          f"购买方：{cust} 项目名称：{item} 规格型号：{spec} 单位：{unit_name} 数量：{qty} "
                          f"单价：{price:.2f} 金额：{amt:.2f} 税率：{rate}% 税额：{tax:.2f} "
                          f"价税合计（小写）：¥{amt + tax:.2f}"))
    return out


def gen_quotes(rng):
    days = []
    d = datetime.date(2023, 3, 1)
    while len(days) < 22:
        if d.weekday() < 5:
            days.append(d)
        d += datetime.timedelta(days=1)
    out = []
    for name, start, vol in [("上证指数", 3279.61, 4200), ("深证成指", 11762.36, 5300),
                             ("沪深300", 4061.05, 2600), ("Hang Seng Index", 19785.94, 950)]:
        prev = start
        for day in days:
            op = prev * (1 + rng.gauss(0, 0.003))
            cl = prev * (1 + rng.gauss(0, 0.011))
            hi = max(op, cl) * (1 + rng.uniform(0.0005, 0.006))
            lo = min(op, cl) * (1 - rng.uniform(0.0005, 0.006))
            op, cl, hi, lo = (round(x, 2) for x in (op, cl, hi, lo))
            ch = round(cl - prev, 2)
            pct = ch / prev * 100
            turn = vol * rng.uniform(0.8, 1.25)
            if name.isascii():
                sign = "up" if ch >= 0 else "down"
                out.append(("en", f"Hang Seng Index, {MONTHS[day.month - 1]} {day.day}, {day.year}: opened at "
                                  f"{op:,.2f}, high {hi:,.2f}, low {lo:,.2f}, closed at {cl:,.2f}, {sign} "
                                  f"{abs(ch):,.2f} points ({pct:+.2f}%); turnover HK${turn / 10:.1f} billion."))
            else:
                w1, w2 = ("上涨", "涨幅") if ch >= 0 else ("下跌", "跌幅")
                out.append(("zh", f"{day.month}月{day.day}日，{name}开盘{op:.2f}点，最高{hi:.2f}点，最低{lo:.2f}点，"
                                  f"收于{cl:.2f}点，{w1}{abs(ch):.2f}点，{w2}{abs(pct):.2f}%，成交额{turn:.1f}亿元。"))
            prev = cl
    return out


def gen_stats(rng):
    out = []
    years = range(2001, 2023)

    def walk(start, mean, sd):
        v, res = start, []
        for _ in years:
            g = rng.gauss(mean, sd)
            res.append((v, g))
            v = v * (1 + g / 100)
        return res

    prev = None
    for y, (v, _) in zip(years, walk(45262, 1.6, 2.5)):
        v = round(v)
        if prev is not None:
            dv = v - prev
            w = ("增加", "增长") if dv >= 0 else ("减少", "下降")
            out.append(("zh", f"{y}年全国粮食总产量{v}万吨，比上年{w[0]}{abs(dv)}万吨，{w[1]}{abs(dv) / prev * 100:.1f}%。"))
        prev = v
    for y, (v, g) in zip(years, walk(110863, 12.0, 3.0)):
        out.append(("zh", f"{y}年国内生产总值{round(v)}亿元，按可比价格计算，比上年增长{g * 0.7:.1f}%。"))
    for y, (v, g) in zip(years, walk(14683, 8.5, 3.0)):
        out.append(("zh", f"{y}年全社会用电量{round(v)}亿千瓦时，比上年增长{g:.1f}%。"))
    prev = None
    for y, (v, g) in zip(years, walk(1802, 14.0, 3.0)):
        v = round(v)
        if prev is not None:
            out.append(("zh", f"{y}年末全国民用汽车保有量{v}万辆，比上年末增加{v - prev}万辆，"
                              f"其中私人汽车{round(v * (0.55 + (y - 2001) * 0.015))}万辆。"))
        prev = v
    for y, (v, g) in zip(years, walk(1702, -1.0, 3.5)):
        rate = v / 128000 * 1000
        out.append(("zh", f"{y}年全国出生人口{round(v)}万人，出生率为{rate:.2f}‰，"
                          f"自然增长率为{rate - 6.9 + rng.uniform(-0.2, 0.2):.2f}‰。"))
    prev = None
    for y, (v, g) in zip(years, walk(1184, 0.0, 12.0)):
        v = round(v)
        if prev is not None:
            p = (v - prev) / prev * 100
            out.append(("en", f"In {y}, the city recorded {v:,} mm of rainfall, {abs(p):.1f}% "
                              f"{'above' if p >= 0 else 'below'} the previous year, with {rng.randint(98, 162)} rainy days."))
        prev = v
    for y, (v, g) in zip(years, walk(2.41, 4.0, 6.0)):
        out.append(("en", f"Visitor arrivals in {y} totalled {v:.2f} million, {'up' if g >= 0 else 'down'} "
                          f"{abs(g):.1f}% on {y - 1}; hotel occupancy averaged {rng.uniform(61, 84):.1f}%."))
    for y, (v, g) in zip(years, walk(96.3, 2.0, 4.0)):
        out.append(("en", f"The national steel output for {y} was {v:.1f} million tonnes, "
                          f"{'an increase' if g >= 0 else 'a decrease'} of {abs(g):.1f} per cent year on year."))
    return out


CHANGED_EN = [
    "The *timeout* parameter was added.", "Added support for path-like objects.",
    "The default value of *encoding* is now *utf-8*.",
    "Raises :exc:`ValueError` instead of :exc:`TypeError` for invalid input.",
    "The *strict* argument is now keyword-only.", "Added the *flags* parameter.",
    "This function is now thread-safe.", "The result is now sorted.",
    "Negative indices are now supported.", "The *key* argument may be ``None``.",
    "Returns a named tuple instead of a plain tuple.", "Added the *follow_symlinks* parameter.",
    "The function now raises :exc:`OSError` on failure.", "Supports the context management protocol.",
    "The *loop* parameter was removed.", "Windows support was added.",
    "The output now includes microseconds.", "Hash randomization is enabled by default.",
    "Added optional *start* and *stop* arguments.", "The *delimiter* may now be any single character.",
    "Accepts any iterable of strings, not only lists.", "Added the *encoding* and *errors* parameters.",
    "The default protocol is now 3.", "The default protocol is now 4.", "The default protocol is now 5.",
    "The default buffer size is now 8192 bytes.", "The default buffer size is now 65536 bytes.",
]
CHANGED_ZH = ["添加了 *timeout* 形参。", "接受一个 :term:`path-like object`。",
              "*strict* 参数现在为仅限关键字参数。", "现在会在失败时引发 :exc:`OSError`。",
              "增加了对 Windows 的支持。", "默认协议现在为 4。"]
VERSIONS = ["2.4", "2.5", "2.6", "2.7"] + [f"3.{i}" for i in range(14)]


def gen_changelog(rng):
    out = []
    for s in CHANGED_EN:
        for v in sorted(rng.sample(VERSIONS, rng.randint(4, 10)), key=VERSIONS.index):
            out.append(("en", f"Changed in version {v}: {s}"))
    for v in VERSIONS:
        out.append(("en", f"New in version {v}."))
    for v in sorted(rng.sample(VERSIONS, 8), key=VERSIONS.index):
        out.append(("en", f"New in version {v}: The *initial* parameter."))
    for s in CHANGED_ZH:
        for v in sorted(rng.sample(VERSIONS, rng.randint(3, 6)), key=VERSIONS.index):
            out.append(("zh", f"在 {v} 版本发生变更: {s}"))
    for v in sorted(rng.sample(VERSIONS, 10), key=VERSIONS.index):
        out.append(("zh", f"在 {v} 版本加入."))
    return out


def fig_punct_ops(lang):
    if lang == "zh":
        return [lambda t: t.replace("，", ", "), lambda t: t.replace("：", ":"),
                lambda t: t.replace("。", "."), lambda t: t.replace("，", " "),
                lambda t: t.replace("（", "(").replace("）", ")"),
                lambda t: t.replace(" ", "，"), lambda t: t.rstrip("。."),
                lambda t: t.replace(": ", "：")]
    return [lambda t: t.replace(" | ", "; "), lambda t: t.replace(" | ", " / "),
            lambda t: t.replace(": ", " - "), lambda t: t.replace(", ", " "),
            lambda t: t.rstrip("."), lambda t: t.replace("; ", ", "),
            lambda t: t.replace("``", ""), lambda t: t.replace(" (", ", ").replace(")", "")]


def fig_repost(rng, lang, t):
    style = rng.choice(["punctuation", "fullwidth", "prefix"])
    if style == "prefix":
        return rng.choice(FIG_PREFIX[lang]) + t
    if style == "fullwidth":
        return fullwidth(t, digits=True)
    ops = fig_punct_ops(lang)
    rng.shuffle(ops)
    changed = t
    for op in ops[: rng.choice([1, 2, 2, 3])]:
        changed = op(changed)
    changed = clean(changed)
    if changed == t or norm_key(changed) != norm_key(t):
        return rng.choice(FIG_PREFIX[lang]) + t
    return changed


def gen_figures(rng, used_keys):
    rows = []
    for fam, gen in [("invoice", gen_invoices), ("quotes", gen_quotes),
                     ("stats", gen_stats), ("changelog", gen_changelog)]:
        items = gen(rng)
        pick = set(rng.sample(range(len(items)), round(len(items) * 0.1)))
        for i, (lang, text) in enumerate(items):
            text = clean(text)
            k = norm_key(text)
            assert k not in used_keys, text
            used_keys.add(k)
            group = f"F-{fam}-{i + 1:04d}"
            rows.append(("figures", group, fam, text))
            if i in pick:
                r = fig_repost(rng, lang, text)
                assert r != text and norm_key(r) == k, (text, r)
                rows.append(("figures", group, "repost", r))
    return rows


def check(rows):
    keys = {}
    for s, g, k, t in rows:
        assert "\t" not in t and "\n" not in t
        keys.setdefault((s, g), set()).add(norm_key(t))
    owner = {}
    for sg, ks in keys.items():
        assert len(ks) == 1, (sg, ks)
        k = next(iter(ks))
        assert k not in owner, (sg, owner.get(k))
        owner[k] = sg
    for s, g, k, t in rows:
        if s == "products":
            assert 15 <= len(t) <= 120, t


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: build.py OUT.tsv")
    rng = random.Random(SEED)
    used = set()
    rows = gen_products(rng, used) + gen_figures(rng, used)
    check(rows)
    with open(sys.argv[1], "w", encoding="utf-8", newline="\n") as f:
        for r in rows:
            f.write("\t".join(clean(x) for x in r) + "\n")
    c = Counter((r[0], r[2]) for r in rows)
    for (s, k), n in sorted(c.items()):
        print(f"{s}\t{k}\t{n}", file=sys.stderr)
    print(f"total\t{len(rows)}", file=sys.stderr)


if __name__ == "__main__":
    main()
