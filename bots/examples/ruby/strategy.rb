# frozen_string_literal: true

# The Ruby example bot's strategy: card counting with an expected-value rule, the same as
# the Node kit's (strategy.js), decision for decision.
#
# Every decision reads only the request: the public observation (every line, every total,
# the draw pile as a multiset `unseen`, the discard pile) and the legal options. Nothing
# here knows about gRPC; bot.rb decodes the messages and calls Strategy.choose.
#
#   HIT_OR_STAY   hit while one more card has a positive expected gain (exact over the
#                 unseen multiset: bust -> lose the line, Flip 7 -> +15, modifiers, ...),
#                 with two end-game overrides (bank a winning lead, gamble when banking
#                 cannot win)
#   targets       value(option) = my gain - sum of opponents' gains x weight(opponent),
#                 weight = 1 + standing/100 (hurting the leader counts more)
#
# Rule references (docs/rules.md): X7 bust, X8 Flip 7, B4/B5/B7 base cards and scoring,
# V3 The Zero, V4 Unlucky 7, V5 Lucky 13, V6 modifiers, V7 actions, V8 Brutal.
module Strategy
  FLIP7_CARDS = 7
  FLIP7_BONUS = 15
  BUST = -1e6 # "never do this" (busting myself)
  FORCED_DRAWS = { 'FLIP_THREE' => 3, 'FLIP_FOUR' => 4, 'JUST_ONE_MORE' => 1 }.freeze
  NUMBER_RE = /\A(?:\d+|U7|L13)\z/.freeze

  # A line of cards: number labels, modifier labels, whether a Second Chance is held.
  Line = Struct.new(:nums, :mods, :sc)
  # One player's public state, decoded from the observation.
  Player = Struct.new(:seat, :status, :nums, :mods, :sc, :total, :line)
  Rules = Struct.new(:vengeance, :brutal, :target)
  Context = Struct.new(:me, :seats, :rules, :players, :pool, :pool_size, :rng, :cache)

  module_function

  # ---------------------------------------------------------------------------- cards

  def number?(label)
    NUMBER_RE.match?(label)
  end

  def modifier?(label)
    label.start_with?('+', '-') || label == 'x2' || label == '/2'
  end

  def number_value(label)
    return 7 if label == 'U7'
    return 13 if label == 'L13'

    label.to_i
  end

  # Would `label` (a number card) bust a line holding `nums`? (X7, V4 Unlucky 7, V5 Lucky 13)
  def would_bust?(nums, label)
    return false if !number?(label) || label == 'U7'

    v = number_value(label)
    same = nums.select { |l| number_value(l) == v }
    return false if same.empty?
    return false if v == 13 && same.size == 1 && (same.include?('L13') || label == 'L13')

    true
  end

  # A line after `label` arrives (the Unlucky 7 wipes every other number and modifier, V4).
  def add_card(line, label)
    return Line.new(['U7'], [], line.sc) if label == 'U7'
    return Line.new(line.nums + [label], line.mods, line.sc) if number?(label)
    return Line.new(line.nums, line.mods + [label], line.sc) if modifier?(label)

    line
  end

  # A line without the card `label` (labels are unique within a line).
  def remove_card(line, label)
    if (i = line.nums.index(label))
      return Line.new(line.nums[0...i] + line.nums[(i + 1)..], line.mods, line.sc)
    end
    if (i = line.mods.index(label))
      return Line.new(line.nums, line.mods[0...i] + line.mods[(i + 1)..], line.sc)
    end

    line
  end

  # What a line scores if the round ended now: [bust, flip7, score]. B7 (base), V6
  # (vengeance), V8 (Brutal: a busted line scores its minus cards, scores may be negative).
  def eval_line(rules, line)
    minus = plus = doubles = halves = 0
    line.mods.each do |m|
      if m == 'x2' then doubles += 1
      elsif m == '/2' then halves += 1
      elsif m.start_with?('-') then minus += m[1..].to_i
      else plus += m[1..].to_i
      end
    end
    # bust: a duplicate number (two 13s are fine when one is the Lucky 13)
    seen = Hash.new { |h, k| h[k] = [] }
    sum = 0
    zero = bust = false
    line.nums.each do |l|
      v = number_value(l)
      sum += v
      zero = true if v.zero?
      prev = seen[v]
      prev << l
      bust = true if prev.size > 1 && !(v == 13 && prev.size == 2 && prev.include?('L13'))
    end
    return [true, false, rules.brutal ? -minus : 0] if bust

    flip7 = line.nums.size >= FLIP7_CARDS
    score =
      if rules.vengeance
        if zero && !flip7
          0 # V3: The Zero scores the line 0 unless Flip 7
        else
          s = (sum / 2**halves).floor - minus
          rules.brutal ? s : [0, s].max
        end
      else
        sum * 2**doubles + plus
      end
    score += FLIP7_BONUS if flip7
    [false, flip7, score]
  end

  def score(rules, line)
    eval_line(rules, line)[2]
  end

  # ---------------------------------------------------------------------------- context

  # Everything a decision needs, decoded once from the request.
  def make_context(req, game)
    obs = req.observation
    ruleset = obs&.ruleset
    variant = obs&.variant.to_s
    variant = ruleset&.variant.to_s if variant.empty?
    variant = game ? game[:variant] : 'base' if variant.empty?
    rules = Rules.new(
      variant == 'vengeance',
      (ruleset&.brutal || (game && game[:brutal])) ? true : false,
      ruleset && ruleset.target_score.positive? ? ruleset.target_score : (game ? game[:target] : 200)
    )
    players = (obs ? obs.players.to_a : []).map do |p|
      Player.new(p.seat, p.status, p.numbers.to_a, p.modifiers.to_a, p.second_chances.positive?,
                 p.total, p.line_score)
    end
    # the draw pile; when it is empty the next draw reshuffles the discard pile (X4)
    pool = {}
    if obs && obs.deck_size.positive?
      obs.unseen.each { |label, n| pool[label] = n if n.positive? }
    end
    if pool.empty? && obs
      obs.discard.each { |label| pool[label] = pool.fetch(label, 0) + 1 }
    end
    Context.new(
      req.seat, players.empty? ? [obs ? obs.seats : 1, 1].max : players.size, rules, players,
      pool, pool.values.sum, game ? game[:rng] : Random.new(req.request_id), {}
    )
  end

  def player(ctx, seat)
    ctx.players[seat] || Player.new(seat, :ACTIVE, [], [], false, 0, 0)
  end

  def line_of(p)
    Line.new(p.nums, p.mods, p.sc)
  end

  # Game total plus what the line would bank now.
  def standing(ctx, seat)
    p = player(ctx, seat)
    p.total + p.line
  end

  # Hurting an opponent is worth more the higher they stand.
  def weight(ctx, seat)
    1 + [0, standing(ctx, seat)].max / 100.0
  end

  # ---------------------------------------------------------------------------- expectations

  # Expected change of the player's line value from drawing one more card, exact over the
  # unseen multiset, and the probability that the card busts the line.
  def hit_outlook(ctx, p)
    ctx.cache[[:hit, p.seat]] ||= begin
      rules = ctx.rules
      line = line_of(p)
      solo = ctx.seats == 1
      cur = score(rules, line)
      gain = 0.0
      bust_cards = second_chances = 0
      ctx.pool.each do |label, n|
        if number?(label)
          bust, flip7, s = eval_line(rules, add_card(line, label))
          if bust
            bust_cards += n
            gain += n * (s - cur) unless p.sc # with a Second Chance both are discarded (B5)
          else
            d = s - cur
            # V3: holding The Zero forbids staying; the line must run on to Flip 7 or bust
            d -= 3 if label == '0' && rules.vengeance && !flip7
            gain += n * d
          end
        elsif modifier?(label)
          # in Vengeance I give it to someone else, which costs me nothing (V6)
          gain += n * (score(rules, add_card(line, label)) - cur) if !rules.vengeance || solo
        elsif label == 'SECOND_CHANCE'
          second_chances += n # valued below, once the bust chance is known
        elsif label == 'STEAL'
          gain += n * 2
        elsif label == 'SWAP' || label == 'DISCARD'
          gain += n
        end
        # Freeze / Flip Three / Just One More! / Flip Four!: I pick the target, so neutral
      end
      size = ctx.pool_size
      p_bust = size.positive? ? bust_cards.fdiv(size) : 0.0
      gain += second_chances * [1, p_bust * cur].max if second_chances.positive? && !p.sc
      { gain: size.positive? ? gain / size : 0.0, p_bust: p_bust, cur: cur }
    end
  end

  def hit_gain(ctx, p)
    hit_outlook(ctx, p)[:gain]
  end

  # Expected change of a player's line value from `k` forced draws (Flip Three, Flip
  # Four!), stopping on bust or Flip 7; Monte Carlo over the unseen multiset. Action cards
  # and (in Vengeance) modifiers are set aside and resolved by the player: neutral.
  def forced_draw_gain(ctx, p, k)
    return hit_gain(ctx, p) if k <= 1

    ctx.cache[[:draw, k, p.seat]] ||= begin
      rules = ctx.rules
      deck = ctx.pool.flat_map { |label, n| [label] * n }
      if deck.empty?
        0.0
      else
        cur = score(rules, line_of(p))
        samples = 160
        draws = [k, deck.size].min
        acc = 0.0
        samples.times do
          line = line_of(p)
          result = nil
          draws.times do |i|
            j = i + ctx.rng.rand(deck.size - i)
            deck[i], deck[j] = deck[j], deck[i]
            label = deck[i]
            if number?(label)
              nxt = add_card(line, label)
              bust, flip7, s = eval_line(rules, nxt)
              if bust
                if line.sc
                  line = Line.new(line.nums, line.mods, false)
                  next
                end
                result = s
                break
              end
              line = nxt
              if flip7
                result = s
                break
              end
            elsif modifier?(label)
              line = add_card(line, label) unless rules.vengeance
            elsif label == 'SECOND_CHANCE' && !line.sc
              line = Line.new(line.nums, line.mods, true)
            end
          end
          result ||= score(rules, line)
          acc += result - cur
        end
        acc / samples
      end
    end
  end

  # What an active player still expects to add to the line by playing on (what a Freeze or
  # the stay after Just One More! takes away): one-card gain x cards still wanted, roughly.
  def continuation(ctx, p)
    return 0.0 unless p.status == :ACTIVE

    g = hit_gain(ctx, p)
    return 0.0 if g <= 0

    sum = p.nums.sum { |l| number_value(l) }
    g * [1, (25 - sum) / 7.0].max
  end

  # ---------------------------------------------------------------------------- decisions

  def argmax(n)
    best = 0
    best_v = -Float::INFINITY
    n.times do |i|
      v = yield i
      if v > best_v
        best = i
        best_v = v
      end
    end
    best
  end

  def hit_or_stay(ctx, options)
    hit = options.index { |o| o.option == :move && o.move == :HIT }
    stay = options.index { |o| o.option == :move && o.move == :STAY }
    return hit || 0 if stay.nil? # empty line, or The Zero (V3): must hit
    return stay if hit.nil?
    return stay if ctx.pool_size.zero? # X4: nothing left to draw

    me = player(ctx, ctx.me)
    mine = me.total + me.line
    target = ctx.rules.target
    best_other = best_banked = -Float::INFINITY
    ctx.players.each do |p|
      next if p.seat == ctx.me

      st = p.total + p.line
      best_other = [best_other, st].max
      best_banked = [best_banked, st].max unless p.status == :ACTIVE
    end
    # end game: banking now ends the game with me on top -> bank it
    return stay if mine >= target && mine > best_other
    # someone already banked a winning total above mine: staying cannot win
    return hit if best_banked >= target && best_banked > mine

    hit_gain(ctx, me).positive? ? hit : stay
  end

  def choose_target(ctx, card, options)
    draws = FORCED_DRAWS[card]
    argmax(options.size) do |i|
      seat = options[i].seat
      p = player(ctx, seat)
      effect = # the change this card makes to the target's expected line value
        if card == 'FREEZE'
          -continuation(ctx, p) # B3: the target banks now
        elsif draws
          g = forced_draw_gain(ctx, p, draws)
          card == 'JUST_ONE_MORE' ? g - continuation(ctx, p) : g # then must stay (V7)
        else
          0.0
        end
      seat == ctx.me ? effect : -effect * weight(ctx, seat)
    end
  end

  def give_second_chance(ctx, options)
    # the weakest opponent benefits me least
    argmax(options.size) do |i|
      seat = options[i].seat
      seat == ctx.me ? -1e9 : -standing(ctx, seat)
    end
  end

  # How much a modifier costs the player who receives it (V6, V8).
  def modifier_damage(ctx, p, label)
    harmful = label.start_with?('-') || label == '/2'
    # Brutal only: a busted line scores its minus cards
    return (label.start_with?('-') ? label[1..].to_i : 0) if p.status == :BUSTED

    line = line_of(p)
    now = score(ctx.rules, line)
    damage = now - score(ctx.rules, add_card(line, label))
    if p.status == :ACTIVE && harmful
      # an active line is still growing: the card will bite into what it becomes
      damage = if label == '/2'
                 [damage, ([now, 20].max / 2).floor].max
               else
                 [damage, label[1..].to_i * 0.8].max
               end
    end
    damage
  end

  def give_modifier(ctx, card, options)
    argmax(options.size) do |i|
      seat = options[i].seat
      damage = modifier_damage(ctx, player(ctx, seat), card)
      # never myself unless I am the only choice
      seat == ctx.me ? -1e9 - damage : damage * weight(ctx, seat) + standing(ctx, seat) / 1000.0
    end
  end

  # The change of a player's line value when `line` replaces their current line: [d, bust].
  def delta(ctx, p, line)
    bust, flip7, s = eval_line(ctx.rules, line)
    d = s - score(ctx.rules, line_of(p))
    # V3: gaining The Zero (without Flip 7) also forbids staying; losing it frees the line
    if ctx.rules.vengeance && !bust && !flip7
      had = p.nums.include?('0')
      has = line.nums.include?('0')
      d -= 5 if has && !had
      d += 2 if had && !has
    end
    [d, bust]
  end

  # Value of one change for me: my gain minus the weighted gains of opponents.
  def value_for(ctx, seat, change)
    d, bust = change
    return (bust ? BUST : d) if seat == ctx.me

    -d * weight(ctx, seat)
  end

  def steal(ctx, options)
    me = player(ctx, ctx.me)
    argmax(options.size) do |i|
      c = options[i].card
      victim = player(ctx, c.seat)
      mine = delta(ctx, me, add_card(line_of(me), c.label))
      theirs = delta(ctx, victim, remove_card(line_of(victim), c.label))
      value_for(ctx, ctx.me, mine) + value_for(ctx, c.seat, theirs)
    end
  end

  def discard(ctx, options)
    argmax(options.size) do |i|
      c = options[i].card
      p = player(ctx, c.seat)
      value_for(ctx, c.seat, delta(ctx, p, remove_card(line_of(p), c.label)))
    end
  end

  def swap(ctx, options)
    argmax(options.size) do |i|
      first = options[i].swap.first
      second = options[i].swap.second
      a = player(ctx, first.seat)
      b = player(ctx, second.seat)
      # first goes to second.seat, second goes to first.seat; both arrive at once (V7)
      new_a = add_card(remove_card(line_of(a), first.label), second.label)
      new_b = add_card(remove_card(line_of(b), second.label), first.label)
      value_for(ctx, first.seat, delta(ctx, a, new_a)) +
        value_for(ctx, second.seat, delta(ctx, b, new_b))
    end
  end

  def flip7_bonus(ctx, options)
    self_index = options.index { |o| o.option == :flip7 && o.flip7.bonus_to_self }
    leader = nil
    leader_standing = -Float::INFINITY
    options.each_with_index do |o, i|
      next if o.option != :flip7 || o.flip7.bonus_to_self

      st = standing(ctx, o.flip7.penalty_seat)
      if st > leader_standing
        leader = i
        leader_standing = st
      end
    end
    return leader if leader && (self_index.nil? || leader_standing > standing(ctx, ctx.me))

    self_index || 0
  end

  # The strategy: an index into req.options. `req` is an Arena::V1::DecisionRequest, `game`
  # the bot's state for that game and seat (a Hash, or nil when the game is unknown).
  def choose(req, game)
    options = req.options.to_a
    return 0 if options.size <= 1

    ctx = make_context(req, game)
    card = req.card.to_s
    case req.kind
    when :HIT_OR_STAY then hit_or_stay(ctx, options)
    when :CHOOSE_TARGET then choose_target(ctx, card, options)
    when :GIVE_SECOND_CHANCE then give_second_chance(ctx, options)
    when :GIVE_MODIFIER then give_modifier(ctx, card, options)
    when :STEAL then steal(ctx, options)
    when :DISCARD then discard(ctx, options)
    when :SWAP then swap(ctx, options)
    when :FLIP7_BONUS then flip7_bonus(ctx, options)
    else 0
    end
  end
end
