"""The plain-words corpus (zh, en, none, gist, zh_more, en_more) and the people it names: (id, name, aliases)."""

PEOPLE = (
    ("p_zhangsan", "张三", ("Zhang San", "老张")),
    ("p_lisi", "李四", ("Li Si",)),
    ("p_wangwu", "王五", ("Wang Wu",)),
    ("p_zhangwei", "张伟", ("Zhang Wei",)),
    ("p_zhaomin", "赵敏", ("Zhao Min",)),
    ("p_chenjing", "陈静", ("Chen Jing",)),
    ("p_alice", "Alice Chen", ("Alice",)),
    ("p_bob", "Bob Smith", ("Bob",)),
)
