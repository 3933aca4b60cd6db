// Deterministic corpus for the tokenizer goldens and benchmarks.
//
// Expands the hand-written seed (tests/data/text/corpus_seed.txt) into documents: the seed
// paragraphs themselves, re-cased and cut at arbitrary code points, plus generated stretches of
// every shape the tokenizer must get right (numbers of every length, whitespace runs with CR/LF,
// NBSP and ideographic spaces, contractions in every case, emoji ZWJ sequences and skin tones,
// combining marks, special-token spellings, random code points from many blocks). The same
// (seed text, PRNG seed, size) always gives the same documents.
import { readFileSync } from 'node:fs';

export function readSeed(path) {
  const raw = readFileSync(path, 'utf8');
  const body = raw.split('\n').filter((l) => !l.startsWith('# ')).join('\n');
  return body
    .split('\n%%\n')
    .map((p) => p.replace(/^%%\n/, '').replace(/\n%%$/, ''))
    .map((p) =>
      p
        .replace(/\{U\+([0-9A-F]{4,6})\}/g, (_, h) => String.fromCodePoint(parseInt(h, 16)))
        .replaceAll('{CR}', '\r')
        .replaceAll('{LF}', '\n')
        .replaceAll('{TAB}', '\t'))
    .filter((p) => p.trim().length > 0);
}

function mulberry32(a) {
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SPACES = [' ', ' ', ' ', '\t', '\n', '\r\n', '\r', '\u00A0', '\u3000', '\u2009', '\u0085',
  '\u2028', '\u202F', '\u000B', '\u000C', '\u1680', '\u180E', '\u200B'];
const EMOJI = ['😀', '👍', '👍🏻', '👍🏿', '👨‍👩‍👧‍👦', '👩🏽‍💻', '🏳️‍🌈', '🏴‍☠️', '🧑🏿‍🤝‍🧑🏻', '❤️‍🔥',
  '🇺🇸', '🇯🇵', '1️⃣', '#️⃣', '🫠', '🤷‍♀️', '🤦🏼‍♂️', '🐈‍⬛', '👁️‍🗨️', '\u{1F3FB}', '\u200D', '\uFE0F'];
const SUFFIXES = ['s', 't', 're', 've', 'm', 'll', 'd', 'S', 'T', 'RE', 'VE', 'M', 'LL', 'D', 'Re',
  'rE', 'Ve', 'vE', 'Ll', 'lL', 'ſ', 'x', 'sam', 'tis', 'dd'];
const WORDS = ['it', 'he', 'She', 'WE', 'they', 'You', 'I', 'dog', 'O', 'l', 'rock', 'X', 'ß',
  'über', 'Ψ', '猫', 'a1', '9', ''];
// Code point blocks the random stretches draw from: [first, last].
const BLOCKS = [[0x20, 0x7e], [0xa0, 0x24f], [0x300, 0x36f], [0x370, 0x3ff], [0x400, 0x4ff],
  [0x590, 0x5ff], [0x600, 0x6ff], [0x900, 0x97f], [0xe00, 0xe7f], [0x1100, 0x11ff],
  [0x2000, 0x206f], [0x2070, 0x209f], [0x20a0, 0x20cf], [0x2100, 0x214f], [0x2150, 0x218f],
  [0x2460, 0x24ff], [0x2500, 0x27bf], [0x3000, 0x303f], [0x3040, 0x30ff], [0x4e00, 0x9fff],
  [0xac00, 0xd7a3], [0xf900, 0xfaff], [0xfb00, 0xfb4f], [0xfe00, 0xfe6f], [0xff00, 0xffef],
  [0x10000, 0x1007f], [0x1d400, 0x1d7ff], [0x1f300, 0x1faff], [0x20000, 0x2a6df],
  [0x31350, 0x323af], [0xe0000, 0xe007f], [0x0, 0x10ffff]];

export function generateDocuments(paragraphs, specials, targetBytes, prngSeed = 1) {
  const rand = mulberry32(prngSeed);
  const int = (n) => Math.floor(rand() * n);
  const pick = (arr) => arr[int(arr.length)];
  const randomCodePoint = () => {
    for (;;) {
      const [a, b] = pick(BLOCKS);
      const cp = a + int(b - a + 1);
      if (cp >= 0xd800 && cp <= 0xdfff) continue;  // no surrogates: documents are valid UTF-8
      return String.fromCodePoint(cp);
    }
  };
  const recase = (s) => {
    const r = int(4);
    if (r === 0) return s.toUpperCase();
    if (r === 1) return s.toLowerCase();
    if (r === 2) return Array.from(s).map((c) => (rand() < 0.5 ? c.toUpperCase() : c)).join('');
    return s;
  };
  const digits = (n) => Array.from({ length: n }, () => String(int(10))).join('');
  const fragments = [
    () => pick(paragraphs),
    () => pick(paragraphs),
    () => recase(pick(paragraphs)),
    () => {
      const cps = Array.from(pick(paragraphs));
      const a = int(cps.length);
      return cps.slice(a, a + 1 + int(200)).join('');
    },
    () => Array.from({ length: 1 + int(12) }, () => digits(1 + int(25)) + pick(['', ' ', '.', ',', 'a', '\n', '-', '１']))
      .join(''),
    () => Array.from({ length: 1 + int(10) }, () =>
      Array.from({ length: 1 + int(8) }, () => pick(SPACES)).join('') + pick(WORDS)).join(''),
    () => Array.from({ length: 1 + int(10) }, () =>
      pick(WORDS) + pick(["'", "'", '’']) + pick(SUFFIXES) + pick([' ', '', '.', '\n', "'"])).join(''),
    () => Array.from({ length: 1 + int(12) }, () => pick(EMOJI) + pick(['', '', ' ', 'a'])).join(''),
    () => Array.from({ length: 1 + int(10) }, () =>
      pick(['e', 'a', 'o', 'A', 'ᄀ', 'ᅡ', 'क', 'ก', ' ', '1']) +
      Array.from({ length: 1 + int(4) }, () => String.fromCodePoint(0x300 + int(0x70))).join(''))
      .join(pick(['', ' '])),
    () => Array.from({ length: 1 + int(8) }, () =>
      pick(['', ' ', 'x', '\n', '<', '|']) + pick(specials) + pick(['', ' ', 'y', '\n', '>'])).join(''),
    () => Array.from({ length: 1 + int(30) }, randomCodePoint).join(''),
  ];
  const separators = ['', ' ', '\n', '\n\n', '\r\n', '\t', '  ', '\u00A0', '\u3000', ' \n '];
  const docs = [];
  let bytes = 0;
  while (bytes < targetBytes) {
    let doc = '';
    const parts = 1 + int(6);
    for (let k = 0; k < parts; ++k) doc += (k ? pick(separators) : '') + pick(fragments)();
    docs.push(doc);
    bytes += Buffer.byteLength(doc, 'utf8');
  }
  return docs;
}

// Multilingual documents: prose in many scripts (CJK, Hangul, Cyrillic, Greek, Arabic, Hebrew,
// Devanagari, Bengali, Tamil, Thai), emoji ZWJ sequences, combining marks, mixed with code, numbers
// and some English, so that well over a third of the bytes are non-ASCII. Scripts without spaces
// (Chinese, Japanese, Thai) give the long pre-tokens the split pattern cannot cut. Deterministic:
// the same (PRNG seed, size) always gives the same documents.
const SCRIPT_WORDS = {
  zh: ['我们', '今天', '天气', '非常', '好', '的', '是', '在', '中国', '北京', '上海', '学习', '工作', '时间',
    '问题', '发展', '经济', '社会', '文化', '技术', '计算机', '程序', '语言', '模型', '数据', '系统', '用户',
    '服务器', '网络', '安全', '研究', '大学', '学生', '老师', '朋友', '家庭', '生活', '城市', '国家', '世界',
    '历史', '未来', '重要', '可以', '没有', '已经', '因为', '所以', '但是', '如果', '虽然', '而且', '一个',
    '这个', '那个', '什么', '怎么', '为什么', '人工智能', '机器学习', '深度', '神经网络', '分词器', '编码',
    '解码', '测试', '性能', '速度', '结果', '方法', '龘', '𠀋', '𪚲', '鬱', '齉'],
  ja: ['私', 'は', 'が', 'を', 'に', 'で', 'と', 'の', 'です', 'ます', 'でした', '東京', '日本語', 'ひらがな',
    'カタカナ', 'コンピューター', 'プログラム', 'トークナイザー', 'ありがとう', 'ございます', 'こんにちは',
    '勉強', '学校', '先生', '会社', '電車', '天気', 'きれい', 'たくさん', 'すこし', 'ラーメン', 'テスト',
    'データベース', 'サーバー', '猫', '犬', '桜', '富士山', 'ゔ', 'ヷ', 'ｶﾀｶﾅ', 'ﾃﾞｰﾀ'],
  ko: ['안녕하세요', '감사합니다', '한국어', '컴퓨터', '프로그램', '서울', '대학교', '학생', '선생님', '오늘',
    '날씨', '정말', '좋아요', '사랑', '시간', '문제', '데이터', '모델', '토크나이저', '빠르다', '느리다', '읽기',
    '쓰기', '그리고', '하지만', '왜냐하면'],
  ru: ['привет', 'мир', 'это', 'очень', 'хорошо', 'программа', 'компьютер', 'язык', 'модель', 'данные',
    'Москва', 'Россия', 'университет', 'студент', 'преподаватель', 'сегодня', 'погода', 'время',
    'проблема', 'решение', 'быстро', 'медленно', 'токенизатор', 'кодирование', 'производительность',
    'и', 'в', 'не', 'на', 'что', 'как', 'но', 'с', 'по', 'из', 'за', 'Ёлка', 'ещё', 'объём', 'Україна',
    'їжак', 'ґанок', 'Беларусь', 'ў', 'Србија', 'њива', 'ђак'],
  el: ['γεια', 'σου', 'κόσμε', 'Ελλάδα', 'Αθήνα', 'γλώσσα', 'υπολογιστής', 'πρόγραμμα', 'και', 'το', 'της',
    'είναι', 'δεδομένα', 'ταχύτητα', 'ΑΛΦΑ', 'ωμέγα', 'ϐ', 'ϑ'],
  ar: ['مرحبا', 'بالعالم', 'السلام', 'عليكم', 'شكرا', 'جزيلا', 'اللغة', 'العربية', 'الحاسوب', 'برنامج',
    'بيانات', 'نموذج', 'القاهرة', 'الرياض', 'جامعة', 'طالب', 'معلم', 'اليوم', 'الطقس', 'جميل', 'في', 'من',
    'على', 'إلى', 'هذا', 'ذلك', 'كان', 'مُحَمَّد', 'كِتَابٌ', 'ﷺ', 'ﻻ', 'فارسی', 'پنجره', 'گفتگو', 'اردو'],
  he: ['שלום', 'עולם', 'תודה', 'רבה', 'שפה', 'עברית', 'מחשב', 'תוכנה', 'ירושלים', 'תל', 'אביב', 'בְּרֵאשִׁית'],
  hi: ['नमस्ते', 'दुनिया', 'भारत', 'हिन्दी', 'भाषा', 'कंप्यूटर', 'प्रोग्राम', 'डेटा', 'मॉडल', 'दिल्ली', 'मुंबई',
    'विश्वविद्यालय', 'छात्र', 'शिक्षक', 'आज', 'मौसम', 'बहुत', 'अच्छा', 'है', 'हैं', 'का', 'की', 'के', 'और',
    'में', 'से', 'पर', 'क्षत्रिय', 'ज्ञान', 'श्री', 'क़', 'ड़', 'संस्कृत', 'स्वागत'],
  bn: ['আমি', 'বাংলা', 'ভাষা', 'ভালোবাসি', 'কলকাতা', 'ঢাকা', 'কম্পিউটার', 'ধন্যবাদ', 'বিশ্ববিদ্যালয়'],
  ta: ['வணக்கம்', 'தமிழ்', 'மொழி', 'சென்னை', 'கணினி', 'நன்றி', 'பள்ளிக்கூடம்', 'கொ', 'கோ'],
  th: ['สวัสดี', 'ครับ', 'ค่ะ', 'ประเทศไทย', 'กรุงเทพ', 'ภาษา', 'ไทย', 'คอมพิวเตอร์', 'โปรแกรม', 'ข้อมูล',
    'แบบจำลอง', 'มหาวิทยาลัย', 'นักเรียน', 'ครู', 'วันนี้', 'อากาศ', 'ดีมาก', 'ขอบคุณ', 'และ', 'ที่', 'ใน',
    'ของ', 'เป็น', 'ไม่', 'ได้', 'จะ', 'มี', 'ความเร็ว', 'ผลลัพธ์', 'น้ำ', 'กิ๋น'],
  vi: ['Xin', 'chào', 'thế', 'giới', 'Việt', 'Nam', 'tiếng', 'ngôn', 'ngữ', 'máy', 'tính', 'dữ', 'liệu',
    'Hà', 'Nội', 'trường', 'đại', 'học', 'hôm', 'nay', 'thời', 'tiết', 'rất', 'đẹp', 'người', 'Nguyễn'],
  de: ['Grüße', 'Straße', 'Mädchen', 'Äpfel', 'Übermorgen', 'schön', 'Fußgängerübergänge', 'Öl', 'weiß'],
};
const SPACELESS = new Set(['zh', 'ja', 'th']);
const PUNCT = { zh: ['，', '。', '、', '！', '？', '：', '；', '「', '」', '（', '）'], ja: ['、', '。', '「', '」', '！', '？'],
  th: [' ', ' ', 'ๆ', '฿'], ar: ['،', '؟', '.', '!', '؛'], hi: ['।', '॥', ',', '?'], bn: ['।', ','],
  default: ['.', ',', '!', '?', ';', ':', '…', '—', '«', '»', '“', '”'] };
const ZWJ_EMOJI = ['👨‍👩‍👧‍👦', '👩🏽‍💻', '🏳️‍🌈', '🏴‍☠️', '🧑🏿‍🤝‍🧑🏻', '❤️‍🔥', '🤷‍♀️', '🤦🏼‍♂️', '🐈‍⬛',
  '👁️‍🗨️', '👩‍❤️‍💋‍👨', '🧑‍🚀', '👨🏾‍🍳', '🇺🇦', '🇯🇵', '🇧🇷', '🏴󠁧󠁢󠁳󠁣󠁴󠁿', '1️⃣', '#️⃣', '😀', '🎉', '🙏🏽',
  '✅', '🚀', '🫠', '🥹', '👍🏻'];
const CODE = [
  'for (int i = 0; i < n; ++i) { sum += a[i] * b[i]; }',
  'def tokenize(text: str) -> list[int]:\n    return [vocab[w] for w in text.split()]',
  'const x = await fetch(`/api/v1/items?id=${id}&lang=${lang}`);',
  'SELECT id, name FROM users WHERE created_at > \'2024-01-01\' ORDER BY id DESC LIMIT 100;',
  'if err != nil {\n\treturn fmt.Errorf("read %s: %w", path, err)\n}',
  '{"name": "测试", "count": 42, "tags": ["ру", "ع", "हि"], "ok": true}',
  'std::vector<std::string> parts = Split(line, \',\');',
  '<div class="greeting" lang="ja">こんにちは、世界！</div>',
  'println!("{} → {}", 名前, значение);',
  '# コメント: 这是注释 — комментарий\nx_1 = y_2 ** 3 // 7',
];

export function generateMultilingual(targetBytes, prngSeed = 11) {
  const rand = mulberry32(prngSeed);
  const int = (n) => Math.floor(rand() * n);
  const pick = (arr) => arr[int(arr.length)];
  const scripts = Object.keys(SCRIPT_WORDS);
  const number = () => pick([
    () => String(int(100000)),
    () => `${int(10000)}.${String(int(100)).padStart(2, '0')}`,
    () => `${1900 + int(150)}-${String(1 + int(12)).padStart(2, '0')}-${String(1 + int(28)).padStart(2, '0')}`,
    () => String(int(1e9)).replace(/\B(?=(\d{3})+(?!\d))/g, ','),
    () => `${int(100)}%`,
    () => Array.from(String(int(100000)), (d) => String.fromCodePoint(0x966 + Number(d))).join(''),  // Devanagari digits
    () => Array.from(String(int(100000)), (d) => String.fromCodePoint(0x660 + Number(d))).join(''),  // Arabic-Indic
    () => Array.from(String(int(1000)), (d) => String.fromCodePoint(0xff10 + Number(d))).join(''),  // fullwidth
  ])();
  const combining = () => pick(['a', 'e', 'o', 'u', 'n', 'A', 'क', 'ก', 'ᄀ', 'z']) +
    Array.from({ length: 1 + int(3) }, () => String.fromCodePoint(0x300 + int(0x70))).join('');
  const sentence = (lang) => {
    const words = SCRIPT_WORDS[lang];
    const punct = PUNCT[lang] || PUNCT.default;
    const len = 4 + int(SPACELESS.has(lang) ? 40 : 18);
    let s = '';
    for (let k = 0; k < len; ++k) {
      const r = rand();
      let w;
      if (r < 0.05) w = number();
      else if (r < 0.08) w = pick(ZWJ_EMOJI);
      else if (r < 0.10) w = combining();
      else if (r < 0.13) w = pick(['API', 'JSON', 'GPU', 'tokenizer', 'Hello', 'OK', 'v2.1', 'UTF-8']);
      else w = pick(words);
      if (k && (!SPACELESS.has(lang) || lang === 'th' ? rand() < (lang === 'th' ? 0.15 : 1) : rand() < 0.05)) {
        s += ' ';
      }
      s += w;
      if (rand() < 0.08) s += pick(punct);
    }
    return s + pick(punct);
  };
  const docs = [];
  let bytes = 0;
  while (bytes < targetBytes) {
    let doc = '';
    const parts = 2 + int(8);
    for (let k = 0; k < parts; ++k) {
      const r = rand();
      let part;
      if (r < 0.12) part = pick(CODE);
      else if (r < 0.17) part = Array.from({ length: 1 + int(12) }, () => pick(ZWJ_EMOJI)).join(pick(['', ' ']));
      else if (r < 0.22) part = Array.from({ length: 2 + int(10) }, number).join(pick([' ', ', ', '\n', ' | ']));
      else if (r < 0.27) part = 'The quick brown fox jumps over the lazy dog, version ' + number() + '.';
      else {
        const lang = pick(scripts);
        part = Array.from({ length: 1 + int(4) }, () => sentence(lang)).join(SPACELESS.has(lang) ? '' : ' ');
      }
      doc += (k ? pick(['\n', '\n\n', ' ', '\r\n', '\t']) : '') + part;
    }
    docs.push(doc);
    bytes += Buffer.byteLength(doc, 'utf8');
  }
  return docs;
}
