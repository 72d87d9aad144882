"""A toy family, registered from the tests ($SUBGAME_FAMILIES=tests.toy_family.family): it
exercises the house without touching any file outside this folder.

Step k of the "sums" stage holds the k-th partial sums, values[k, i] = values[k-1, i] +
i * (k + 1), so the end result is known in closed form: values[k, i] = i (k+1)(k+2)/2. The
"distinct" stage is sized by what "sums" wrote: the distinct residues of the last level
modulo ``modulus``, sorted, in shards of WIDTH.
"""
