// Easing curves for animation, t in [0, 1].
const float PI = 3.14159265;

float easeInOutCubic(float t)
{
    return t < 0.5 ? 4.0 * t * t * t : 1.0 - pow(-2.0 * t + 2.0, 3.0) / 2.0;
}

float easeInOutSine(float t)
{
    return -(cos(PI * t) - 1.0) / 2.0;
}

float easeOutElastic(float t)
{
    const float c4 = (2.0 * PI) / 3.0;
    if (t <= 0.0) return 0.0;
    if (t >= 1.0) return 1.0;
    return pow(2.0, -10.0 * t) * sin((t * 10.0 - 0.75) * c4) + 1.0;
}

float easeOutBounce(float t)
{
    const float n1 = 7.5625;
    const float d1 = 2.75;
    if (t < 1.0 / d1) {
        return n1 * t * t;
    } else if (t < 2.0 / d1) {
        t -= 1.5 / d1;
        return n1 * t * t + 0.75;
    } else if (t < 2.5 / d1) {
        t -= 2.25 / d1;
        return n1 * t * t + 0.9375;
    }
    t -= 2.625 / d1;
    return n1 * t * t + 0.984375;
}

float easeInExpo(float t)
{
    return t == 0.0 ? 0.0 : exp2(10.0 * t - 10.0);
}
